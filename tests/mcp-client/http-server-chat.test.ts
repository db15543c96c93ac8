/**
 * server-everything over Streamable HTTP (a real process on loopback), used by a whole server: the
 * operator file in `MANGO_MCP_SERVERS`, its tools in `GET /api/settings/tools`, a chat turn whose
 * scripted model calls one, the same enable/disable API, add, structured content, the image tool and
 * progress, a cancel over HTTP, and Mango's own `/mcp`, which does not re-export them. Without
 * `MANGO_MCP_ALLOW_PRIVATE=1` the loopback server is refused and the builtins work on.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolProgressEvent } from '../../src/contracts/tool-progress-event.ts';
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { createExternalTools } from '../../src/mcp-client/create-external-tool-source.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { collectSseEvents, readSseEvents } from '../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { type EverythingOverHttp, startEverythingOverHttp } from './external-servers.ts';

describe('server-everything over Streamable HTTP, in a whole server', () => {
  let everything: EverythingOverHttp;
  let url: string;
  let handle: TestDatabase;
  let directory: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  const provider = new ScriptedProvider(
    [
      toolCallsResponse([{ id: 'a1', name: 'mcp__web__echo', arguments: { message: 'asked first' } }]),
      textResponse('It was echoed after your yes.'),
      toolCallsResponse([{ id: 'c1', name: 'mcp__web__echo', arguments: { message: 'through a turn' } }]),
      textResponse('The server echoed it.'),
    ],
    { id: 'openai' },
  );
  const registry = new ToolRegistry();
  registry.register(makeTool({ name: 'builtin_probe', execute: async () => ({ fine: true }) }));

  const build = (allowPrivate: boolean) => {
    const environment = {
      MANGO_MCP_SERVERS: join(directory, 'servers.json'),
      MANGO_MCP_ALLOW_PRIVATE: allowPrivate ? '1' : '0',
    };
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({ openai: provider }),
      environment,
      log: () => {},
    });
    app = createApp(deps);
  };
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    return response;
  };

  beforeAll(async () => {
    everything = await startEverythingOverHttp();
    url = everything.url;
    directory = mkdtempSync(join(tmpdir(), 'mango-mcp-http-'));
    writeFileSync(
      join(directory, 'servers.json'),
      JSON.stringify({ mcpServers: { web: { type: 'http', url } } }),
    );
    handle = await createTestDatabase('sqlite');
    build(true);
    token = (await deps.users.create('dora')).token;
  }, 30_000);
  afterAll(async () => {
    await deps.externalTools?.close();
    await everything.stop();
    await handle.dispose();
    rmSync(directory, { recursive: true, force: true });
  }, 30_000);

  test('the tools appear in GET /api/settings/tools, external, enabled, with a timeout setting', async () => {
    const response = await request('GET', '/api/settings/tools');
    expect(response.status).toBe(200);
    const { tools } = (await response.json()) as { tools: Record<string, unknown>[] };
    const echo = tools.find((tool) => tool.name === 'mcp__web__echo');
    expect(echo).toMatchObject({
      name: 'mcp__web__echo',
      title: 'Echo Tool (web)',
      category: 'external',
      enabled: true,
      canDisable: true,
      available: true,
      parameters: { timeoutSeconds: 60, approval: 'always', approvalTimeoutSeconds: 600 },
    });
    expect(tools[0]?.name).toBe('builtin_probe');
  });

  test('by default an external call waits for the user: the question, then the approved call runs', async () => {
    const created = (await (
      await request('POST', '/api/chats', { provider: 'openai', model: 'm' })
    ).json()) as { id: string };
    const stream = readSseEvents(
      await request('POST', `/api/chats/${created.id}/turns`, { message: 'Echo it' }),
    );
    // Read by hand: leaving a for-await loop early would close the stream.
    const events: Record<string, unknown>[] = [];
    for (let next = await stream.next(); !next.done; next = await stream.next()) {
      events.push(next.value);
      if (next.value.type === 'tool_approval_requested') break;
    }
    expect(events.at(-1)).toEqual({
      type: 'tool_approval_requested',
      callId: 'a1',
      name: 'mcp__web__echo',
      arguments: { message: 'asked first' },
      reason: 'mcp__web__echo asks before every call ("approval" is "always").',
      expiresAt: new Date(FIXED_NOW + 600_000).toISOString(),
    });
    const answer = await request('POST', `/api/chats/${created.id}/approvals/a1`, { decision: 'approve' });
    expect(answer.status).toBe(200);
    for await (const event of stream) events.push(event);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      type: 'tool_result',
      callId: 'a1',
      ok: true,
      result: { content: [{ type: 'text', text: 'Echo: asked first' }] },
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('a chat turn calls the external tool and the model gets its result', async () => {
    // External tools ask for approval by default; this turn is about the call itself, so the user
    // says "never" for it first.
    const put = await request('PUT', '/api/settings/tools/mcp__web__echo', {
      parameters: { approval: 'never' },
    });
    expect(put.status).toBe(200);
    const created = (await (
      await request('POST', '/api/chats', { provider: 'openai', model: 'm' })
    ).json()) as { id: string };
    const events = await collectSseEvents(
      await request('POST', `/api/chats/${created.id}/turns`, { message: 'Echo it' }),
    );
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      type: 'tool_result',
      callId: 'c1',
      name: 'mcp__web__echo',
      ok: true,
      result: { content: [{ type: 'text', text: 'Echo: through a turn' }] },
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const offered = provider.requests[2]?.tools.map((tool) => tool.name) ?? [];
    expect(offered).toContain('mcp__web__echo');
    expect(JSON.stringify(provider.requests[3]?.history)).toContain('Echo: through a turn');
  });

  test('the same settings API disables and tunes it', async () => {
    const response = await request('PUT', '/api/settings/tools/mcp__web__get-sum', {
      enabled: false,
      parameters: { timeoutSeconds: 5 },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      name: 'mcp__web__get-sum',
      enabled: false,
      parameters: { timeoutSeconds: 5 },
    });
    const tooShort = await request('PUT', '/api/settings/tools/mcp__web__get-sum', {
      parameters: { timeoutSeconds: 4 },
    });
    expect(tooShort.status).toBe(422);
    const runtime = await deps.toolSettings.list((await deps.users.findByName('dora'))?.id ?? '');
    expect(runtime.find((tool) => tool.name === 'mcp__web__get-sum')?.enabled).toBe(false);
  });

  test('a cancel over HTTP stops the server’s long operation', async () => {
    const userId = (await deps.users.findByName('dora'))?.id ?? '';
    const tools = await deps.externalTools?.source.registryFor(userId);
    const tool = tools?.get('mcp__web__trigger-long-running-operation');
    if (!tool) throw new Error('tool missing');
    const { executeTool } = await import('../../src/tools/execution.ts');
    const controller = new AbortController();
    const started = performance.now();
    const outcome = await executeTool(
      tool.definition.name,
      { duration: 30, steps: 100 },
      {
        userId,
        reachable: { workingDirectory: '/', homeDirectory: '/', roots: [], protectedPaths: [] },
        signal: controller.signal,
        // Cancelled once the server reported its first step (0.3 s in): the operation is under way.
        onProgress: () => controller.abort(),
      },
      undefined,
      { registry: tools },
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.classification).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 20_000);

  test('over HTTP too: add, structured content, the image tool and progress', async () => {
    const userId = (await deps.users.findByName('dora'))?.id ?? '';
    const tools = await deps.externalTools?.source.registryFor(userId);
    const { executeTool } = await import('../../src/tools/execution.ts');
    const progress: ToolProgressEvent[] = [];
    const call = (name: string, args: Record<string, unknown>) =>
      executeTool(
        name,
        args,
        {
          userId,
          chatId: 'chat-http',
          dataDirectory: directory,
          reachable: { workingDirectory: '/', homeDirectory: '/', roots: [], protectedPaths: [] },
          onProgress: (event) => progress.push(event),
        },
        { parameters: { timeoutSeconds: 60 } },
        { registry: tools },
      );
    // get-sum was disabled through the settings API above; the registry still runs it when asked directly.
    expect(await call('mcp__web__get-sum', { a: 2, b: 40 })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] },
    });
    const structured = await call('mcp__web__get-structured-content', { location: 'Chicago' });
    expect((structured as { result: { structuredContent: unknown } }).result.structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
    const image = await call('mcp__web__get-tiny-image', {});
    expect(image.ok).toBe(true);
    const blocks = (image as { result: { content: Record<string, unknown>[] } }).result.content;
    const stored = blocks.find((block) => block.type === 'image');
    expect(stored?.mimeType).toBe('image/png');
    expect(stored?.url).toBe(`/api/images/${stored?.id as string}`);
    expect(stored?.byteLength).toBeGreaterThan(0);
    const long = await call('mcp__web__trigger-long-running-operation', { duration: 0.6, steps: 3 });
    expect(long.ok).toBe(true);
    expect(progress.slice(0, 2).map((event) => [event.completed, event.total])).toEqual([
      [1, 3],
      [2, 3],
    ]);
  }, 20_000);

  test('Mango’s own /mcp does not offer external tools, and marks itself', async () => {
    const initialize = await request(
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { accept: 'application/json, text/event-stream' },
    );
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('mango-mcp-server')).toBe('1');
    const session = initialize.headers.get('mcp-session-id') ?? '';
    await initialize.text();
    const headers = {
      accept: 'application/json, text/event-stream',
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-06-18',
    };
    await (
      await request('POST', '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
    ).text();
    const listed = await (
      await request('POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers)
    ).text();
    expect(listed).toContain('builtin_probe');
    expect(listed).not.toContain('mcp__web__');
  });

  test('without MANGO_MCP_ALLOW_PRIVATE the loopback server is refused and the builtins still work', async () => {
    await deps.externalTools?.close();
    build(false);
    const { tools } = (await (await request('GET', '/api/settings/tools')).json()) as {
      tools: { name: string }[];
    };
    expect(tools.map((tool) => tool.name)).toEqual(['builtin_probe']);
    const userId = (await deps.users.findByName('dora'))?.id ?? '';
    const states = await deps.externalTools?.source.serverStates(userId);
    expect(states?.servers[0]).toMatchObject({ name: 'web', status: 'failed' });
    expect(states?.servers[0]?.error).toContain('Refused to connect to http://127.0.0.1:');
    expect(
      createExternalTools({
        environment: {},
        builtins: registry,
        dataDirectory: directory,
        workspaces: deps.workspaces,
      }),
    ).toBeUndefined();
  });
});
