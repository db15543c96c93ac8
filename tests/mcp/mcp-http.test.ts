import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { handleMcpHttpRequest, McpHttpSessions } from '../../src/mcp/mcp-http-handler.ts';
import { ToolSettingsEvents } from '../../src/settings/tool-settings-events.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import type { User } from '../../src/users/user-repository.ts';
import { callResultData, createMcpTestRegistry } from '../helpers/mcp-test-tools.ts';
import { createTestWorkspaces } from '../helpers/test-workspaces.ts';

const users = new Map<string, User>([
  ['alice-token', { id: 'user-alice', name: 'alice', createdAt: '2026-01-01T00:00:00.000Z' }],
  ['bob-token', { id: 'user-bob', name: 'bob', createdAt: '2026-01-01T00:00:00.000Z' }],
]);
const tools = createMcpTestRegistry();
const toolSettings = new InMemoryToolSettingsRepository();
const toolSettingsEvents = new ToolSettingsEvents();
const workspaces = createTestWorkspaces();
const sessions = new McpHttpSessions({ maxSessionsPerUser: 4 });
/** Resolves with the session id of each standalone GET stream the server opened (list_changed path). */
let standaloneStreams = new Map<string, PromiseWithResolvers<void>>();

function standaloneStreamOf(sessionId: string): PromiseWithResolvers<void> {
  let entry = standaloneStreams.get(sessionId);
  if (!entry) {
    entry = Promise.withResolvers<void>();
    standaloneStreams.set(sessionId, entry);
  }
  return entry;
}

// The app's part in miniature (the real mount is src/http/mcp/mcp-routes.ts, tested through the real
// server in tests/server/server-mcp.test.ts): authenticate the bearer token, then hand over.
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (new URL(request.url).pathname !== '/mcp') return new Response('not found', { status: 404 });
    const token = request.headers.get('authorization')?.match(/^Bearer (.+)$/)?.[1];
    const user = token === undefined ? undefined : users.get(token);
    if (!user) return Response.json({ error: 'Missing or invalid bearer token.' }, { status: 401 });
    const response = await handleMcpHttpRequest(request, user, {
      sessions,
      toolSettings,
      toolSettingsEvents,
      registry: tools.registry,
      workspaces: workspaces.service,
      log: () => {},
    });
    const sessionId = request.headers.get('mcp-session-id');
    if (request.method === 'GET' && sessionId && response.ok) standaloneStreamOf(sessionId).resolve();
    return response;
  },
});
const endpoint = new URL(`http://127.0.0.1:${server.port}/mcp`);

let temporary = '';
beforeAll(async () => {
  temporary = await mkdtemp(join(tmpdir(), 'mango-mcp-http-'));
  await toolSettings.put('user-alice', 'get_current_datetime', { enabled: false });
});
afterAll(async () => {
  await sessions.closeAll();
  server.stop(true);
  await rm(temporary, { recursive: true, force: true });
  workspaces.dispose();
});

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(openClients.splice(0).map((client) => client.close()));
  standaloneStreams = new Map();
});

async function connect(token: string, url: URL = endpoint) {
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  openClients.push(client);
  return { client, sessionId: transport.sessionId! };
}

function structured(result: unknown): Record<string, unknown> {
  return callResultData(result);
}

async function postWithSession(token: string, sessionId: string, body: unknown): Promise<Response> {
  return fetch(endpoint, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'Mcp-Protocol-Version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });
}

describe('MCP over Streamable HTTP', () => {
  test('two users each see only their own settings', async () => {
    const alice = await connect('alice-token');
    const bob = await connect('bob-token');
    const aliceNames = (await alice.client.listTools()).tools.map((tool) => tool.name);
    const bobNames = (await bob.client.listTools()).tools.map((tool) => tool.name);
    expect(aliceNames).not.toContain('get_current_datetime');
    expect(bobNames).toContain('get_current_datetime');

    const bobCall = await bob.client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'UTC' },
    });
    expect(structured(bobCall).timezone).toBe('UTC');
    const aliceCall = await alice.client.callTool({ name: 'get_current_datetime', arguments: {} });
    expect(aliceCall.isError).toBe(true);
    expect(structured(aliceCall).error).toMatchObject({ classification: 'tool_disabled' });

    const probe = await alice.client.callTool({ name: 'session_probe', arguments: {} });
    expect(structured(probe)).toMatchObject({
      userId: 'user-alice',
      workingDirectory: join(workspaces.workspacesDirectory, 'user-alice'),
      roots: [{ path: join(workspaces.workspacesDirectory, 'user-alice'), access: 'read-write' }],
    });
  });

  test('one user cannot use another user’s session: answered as an unknown session', async () => {
    const bob = await connect('bob-token');
    const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };
    const stolen = await postWithSession('alice-token', bob.sessionId, ping);
    expect(stolen.status).toBe(404);
    expect(await stolen.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    const unknown = await postWithSession('alice-token', crypto.randomUUID(), ping);
    expect(unknown.status).toBe(404);
    const own = await postWithSession('bob-token', bob.sessionId, ping);
    expect(own.status).toBe(200);
    // Bob's session still works for Bob.
    expect((await bob.client.listTools()).tools.length).toBeGreaterThan(0);
  });

  test('requests without a valid token never reach the handler', async () => {
    const response = await fetch(endpoint, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
  });

  test('a call that fails validation is an isError result, not a protocol error', async () => {
    const bob = await connect('bob-token');
    const result = await bob.client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'Mars/Olympus' },
    });
    expect(result.isError).toBe(true);
    expect(structured(result).error).toMatchObject({ classification: 'validation_failed' });
  });

  test('a settings change sends list_changed and the next list reflects it', async () => {
    const bob = await connect('bob-token');
    await standaloneStreamOf(bob.sessionId).promise;
    const changed = Promise.withResolvers<void>();
    bob.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.resolve());
    await toolSettings.put('user-bob', 'report_progress', { enabled: false });
    toolSettingsEvents.emit('user-bob', 'report_progress');
    await changed.promise;
    expect((await bob.client.listTools()).tools.map((tool) => tool.name)).not.toContain('report_progress');
    await toolSettings.put('user-bob', 'report_progress', {});
  });

  test('a client cancel aborts the running call', async () => {
    const bob = await connect('bob-token');
    const observation = tools.expectWaitCall();
    const controller = new AbortController();
    const call = bob.client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await observation.started;
    controller.abort('stop');
    await expect(call).rejects.toThrow();
    expect(((await observation.aborted) as { classification?: string }).classification).toBe('cancelled');
  });

  test('progress notifications arrive over the request stream', async () => {
    const bob = await connect('bob-token');
    const seen: number[] = [];
    await bob.client.callTool({ name: 'report_progress', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress.progress),
    });
    expect(seen).toEqual([1, 2, 3]);
  });

  test('cwd on the initialize URL binds the session inside the user’s workspaces; bad values are refused', async () => {
    await workspaces.service.grant('user-alice', temporary, false);
    const bound = new URL(endpoint);
    bound.search = new URLSearchParams({ cwd: temporary }).toString();
    const alice = await connect('alice-token', bound);
    const probe = await alice.client.callTool({ name: 'session_probe', arguments: {} });
    expect(structured(probe)).toMatchObject({
      workingDirectory: await realpath(temporary),
      roots: [{ path: await realpath(temporary), access: 'read-write' }],
    });

    const outside =
      'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).';
    for (const [search, status, message] of [
      ['cwd=relative/dir', 422, undefined],
      [
        `cwd=${join(temporary, 'missing')}`,
        422,
        `The working directory ${join(temporary, 'missing')} does not exist.`,
      ],
      [`cwd=${tmpdir()}`, 422, outside],
      [`cwd=${join(workspaces.workspacesDirectory, 'user-bob')}`, 422, outside],
      [`cwd=${join(tmpdir(), 'no-such-place')}`, 422, outside],
      ['unrestricted=true', 422, undefined],
      ['restricted=true', 400, undefined],
      ['unrestricted=maybe', 400, undefined],
    ] as const) {
      const response = await fetch(`${endpoint.href}?${search}`, {
        method: 'POST',
        headers: { Authorization: 'Bearer alice-token', 'Content-Type': 'application/json' },
        body: '{}',
      });
      const body = (await response.json()) as { error: { message: string } };
      expect({ search, status: response.status }).toEqual({ search, status });
      if (message !== undefined) expect(body.error.message).toBe(message);
    }
  });

  test('a revoked grant applies at the session’s next call', async () => {
    const shared = await mkdtemp(join(tmpdir(), 'mango-mcp-http-shared-'));
    try {
      await workspaces.service.grant('user-alice', shared, false);
      const bound = new URL(endpoint);
      bound.search = new URLSearchParams({ cwd: shared }).toString();
      const alice = await connect('alice-token', bound);
      expect((await alice.client.callTool({ name: 'session_probe', arguments: {} })).isError).toBeUndefined();
      await workspaces.service.revoke('user-alice', shared);
      const refused = await alice.client.callTool({ name: 'session_probe', arguments: {} });
      expect(refused.isError).toBe(true);
      expect(structured(refused).error).toEqual({
        classification: 'permission_denied',
        message:
          'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).',
      });
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });

  test('a non-initialize request without a session is refused and leaves no session behind', async () => {
    const before = sessions.size;
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer bob-token',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(400);
    expect(sessions.size).toBe(before);
  });

  test('DELETE ends a session; opening past the per-user cap closes the least recently used', async () => {
    const first = await connect('bob-token');
    await first.client.transport!.close();
    const deleted = await fetch(endpoint, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer bob-token', 'Mcp-Session-Id': first.sessionId },
    });
    expect(deleted.status).toBe(200);
    const afterDelete = await postWithSession('bob-token', first.sessionId, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(afterDelete.status).toBe(404);

    await sessions.closeAll();
    const opened = [];
    for (let index = 0; index < sessions.maxSessionsPerUser + 1; index += 1)
      opened.push(await connect('bob-token'));
    expect(sessions.size).toBe(sessions.maxSessionsPerUser);
    const evicted = await postWithSession('bob-token', opened[0]!.sessionId, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(evicted.status).toBe(404);
  });
});
