/**
 * The real server (`startServer`, port 0, on SQLite and on PostgreSQL) with real tokens from the user repository:
 * - `/mcp` needs the bearer token; two users' MCP sessions see only their own settings;
 * - a PUT /api/settings/tools/… reaches a running HTTP MCP session as `notifications/tools/list_changed`,
 *   and the next tools/list reflects it (one ToolSettingsEvents for the settings service and MCP);
 * - generate_image through MCP: providers from the env given to `startServer`, progress "image n of N",
 *   the file under the server's data directory, served at its URL to its owner only;
 * - `stop()` closes the open MCP sessions.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Progress, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { resetImageGenerationConfiguration } from '../../src/images/image-generation-config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { PNG_BYTES, type ReplayImageServer, startReplayImageServer } from '../helpers/replay-image-server.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('the server on %s', (backend) => {
  let handle: TestDatabase;
  let server: RunningServer;
  let replay: ReplayImageServer;
  const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
  const clients: Client[] = [];
  let work: string;

  beforeAll(async () => {
    // Granted to alice; outside the data directory, which no grant may touch.
    work = await realpath(await mkdtemp(join(tmpdir(), 'mango-server-mcp-work-')));
    replay = startReplayImageServer(() => ({ kind: 'image' }));
    handle = await createTestDatabase(backend, { migrate: false });
    await mkdir(join(work, 'project'), { recursive: true });
    server = await startServer(handle.config, {
      print: () => {},
      env: {
        OPENAI_BASE_URL: replay.openaiBaseURL,
      },
    });
    for (const name of ['alice', 'bob'] as const) tokens[name] = (await server.deps.users.create(name)).token;
    const alice = await server.deps.users.findByName('alice');
    await server.deps.workspaces.grant(alice!.id, work, false);
  }, 30_000);
  afterAll(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
    await server.stop();
    await replay.stop();
    await handle.dispose();
    await rm(work, { recursive: true, force: true });
    resetImageGenerationConfiguration();
  });

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function toolNames(client: Client): Promise<string[]> {
    return (await client.listTools()).tools.map((tool) => tool.name);
  }

  function structured(result: unknown): Record<string, unknown> {
    return callResultData(result);
  }

  function putSettings(token: string, tool: string, body: unknown): Promise<Response> {
    return fetch(`${server.url}/api/settings/tools/${tool}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  describe('MCP on the real server', () => {
    test('/mcp without a valid token is a 401 before the body is read', async () => {
      for (const authorization of [undefined, 'Bearer mango_not-a-token']) {
        const response = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(authorization ? { authorization } : {}),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
        });
        expect(response.status).toBe(401);
        expect(await response.json()).toMatchObject({ code: 'unauthorized' });
      }
    });

    test('a PUT through the API sends list_changed to a running session; the next list reflects it', async () => {
      const client = await connect(tokens.alice);
      expect(await toolNames(client)).toContain('get_current_datetime');
      const changed = Promise.withResolvers<void>();
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.resolve());

      expect((await putSettings(tokens.alice, 'get_current_datetime', { enabled: false })).status).toBe(200);
      await changed.promise;
      expect(await toolNames(client)).not.toContain('get_current_datetime');

      const again = Promise.withResolvers<void>();
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => again.resolve());
      expect((await putSettings(tokens.alice, 'get_current_datetime', { enabled: true })).status).toBe(200);
      await again.promise;
      expect(await toolNames(client)).toContain('get_current_datetime');
    });

    test('cwd on the initialize URL must lie inside the user’s workspaces, as for a chat', async () => {
      const project = join(work, 'project');
      const initialize = (cwd: string) =>
        fetch(`${server.url}/mcp?${new URLSearchParams({ cwd })}`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${tokens.alice}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 't', version: '1' },
            },
          }),
        });
      for (const outside of ['/etc', '/', `${project}/../../..`, handle.config.dataDirectory, '/proc/self']) {
        const refused = await initialize(outside);
        expect({ outside, status: refused.status }).toEqual({ outside, status: 422 });
        expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
          'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).',
        );
      }
      const accepted = await initialize(project);
      expect(accepted.status).toBe(200);
      await accepted.body?.cancel();
      const sessionId = accepted.headers.get('mcp-session-id')!;
      await fetch(`${server.url}/mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${tokens.alice}`, 'mcp-session-id': sessionId },
      });
    });

    test('a session whose bound directory is later swapped for a link out of the workspaces runs no tool', async () => {
      const bound = join(work, 'swapped');
      await mkdir(bound);
      const url = new URL(`${server.url}/mcp`);
      url.search = new URLSearchParams({ cwd: bound }).toString();
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${tokens.alice}` } },
      });
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(transport);
      clients.push(client);
      const before = await client.callTool({ name: 'get_current_datetime', arguments: { timezone: 'UTC' } });
      expect(before.isError).toBeFalsy();

      await rm(bound, { recursive: true });
      await symlink(tmpdir(), bound);
      const after = await client.callTool({ name: 'get_current_datetime', arguments: { timezone: 'UTC' } });
      expect(after.isError).toBe(true);
      expect(structured(after).error).toEqual({
        classification: 'permission_denied',
        message:
          'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).',
      });
    });

    test('two users over HTTP: each sees and runs only under their own settings', async () => {
      expect((await putSettings(tokens.bob, 'get_current_datetime', { enabled: false })).status).toBe(200);
      const alice = await connect(tokens.alice);
      const bob = await connect(tokens.bob);
      expect(await toolNames(alice)).toContain('get_current_datetime');
      expect(await toolNames(bob)).not.toContain('get_current_datetime');

      const aliceCall = await alice.callTool({
        name: 'get_current_datetime',
        arguments: { timezone: 'UTC' },
      });
      expect(structured(aliceCall).timezone).toBe('UTC');
      const bobCall = await bob.callTool({ name: 'get_current_datetime', arguments: {} });
      expect(bobCall.isError).toBe(true);
      expect(structured(bobCall).error).toMatchObject({ classification: 'tool_disabled' });
    });

    test('generate_image: progress "image n of N", the file in the data dir, served to its owner only', async () => {
      const client = await connect(tokens.alice);
      expect(await toolNames(client)).toContain('generate_image');
      const progress: Progress[] = [];
      const result = await client.callTool(
        { name: 'generate_image', arguments: { prompt: 'a red fox', count: 2 } },
        undefined,
        { onprogress: (update) => progress.push(update) },
      );
      expect(result.isError).toBeUndefined();
      const images = structured(result).images as { id: string; url: string }[];
      expect(images).toHaveLength(2);

      // Never past its total: the start is 0 of 2, each finished image one more.
      expect(progress.map(({ progress: step, total }) => ({ step, total }))).toEqual([
        { step: 0, total: 2 },
        { step: 1, total: 2 },
        { step: 2, total: 2 },
      ]);
      expect(progress.slice(1).map((update) => update.message)).toEqual([
        'image 1 of 2 done',
        'image 2 of 2 done',
      ]);

      const aliceUser = await server.deps.users.findByToken(tokens.alice);
      for (const image of images) {
        expect(image.url).toBe(`/api/images/${image.id}`);
        const record = await server.deps.images.get(image.id);
        expect(record?.filePath.startsWith(join(handle.config.dataDirectory, 'images'))).toBe(true);
        expect(record?.userId).toBe(aliceUser!.id);

        const owner = await fetch(`${server.url}${image.url}`, {
          headers: { authorization: `Bearer ${tokens.alice}` },
        });
        expect(owner.status).toBe(200);
        expect(owner.headers.get('content-type')).toBe('image/png');
        expect(new Uint8Array(await owner.arrayBuffer())).toEqual(new Uint8Array(PNG_BYTES));
        const other = await fetch(`${server.url}${image.url}`, {
          headers: { authorization: `Bearer ${tokens.bob}` },
        });
        expect(other.status).toBe(404);
        expect(await other.json()).toEqual({ error: 'Image not found.', code: 'not_found' });
      }
    });
  });

  test('stop() closes every open MCP session', async () => {
    await connect(tokens.bob);
    expect(server.deps.mcpSessions.size).toBeGreaterThan(0);
    await server.stop();
    expect(server.deps.mcpSessions.size).toBe(0);
  });
});
