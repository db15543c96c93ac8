/**
 * One instance's tool call slots are shared by its chat turns and its MCP sessions
 * (`MANGO_USER_MAX_TOOL_CALLS`, here 1): while a user's chat turn runs a call, the same user's MCP call
 * waits, is told so by a progress notification, and runs once the chat's call ended; another user's MCP
 * call runs at once; an MCP call cancelled by its client while it waits never runs.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { type App, createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { blockingTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { collectSseEvents } from '../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../helpers/stub-provider-registry.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

let handle: TestDatabase;
let deps: AppDependencies;
let app: App;
const block = blockingTool();
const users: Record<'alice' | 'bob', { id: string; token: string }> = {
  alice: { id: '', token: '' },
  bob: { id: '', token: '' },
};
const clients: Client[] = [];

beforeAll(async () => {
  handle = await createTestDatabase('sqlite');
  const registry = createTestRegistry();
  registry.register(block.tool);
  const provider = new ScriptedProvider([
    toolCallsResponse([{ id: 'call-1', name: 'block', arguments: { value: 'chat' } }]),
    textResponse('Done.'),
  ]);
  deps = createAppDependencies({
    config: handle.config,
    database: handle.database,
    registry,
    now: () => Date.UTC(2026, 11, 2, 11, 0, 0),
    providers: createStubProviderRegistry({ openai: provider }),
    environment: { MANGO_USER_MAX_TOOL_CALLS: '1' },
    externalTools: null,
    log: () => {},
  });
  app = createApp(deps);
  for (const name of ['alice', 'bob'] as const) {
    const created = await deps.users.create(name);
    users[name] = { id: created.user.id, token: created.token };
  }
});

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await deps.mcpSessions.closeAll();
  await handle.dispose();
});

/** An MCP session of `user` against the app in process (no port). */
async function connect(user: 'alice' | 'bob'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${users[user].token}` } },
    fetch: (input, init) => app.handle(new Request(input, init)),
  });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

test("a chat turn's call and an MCP call of one user take turns; another user's call is not held", async () => {
  const send = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${users.alice.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const chat = (await (await send('POST', '/api/chats', { provider: 'openai', model: 'm' })).json()) as {
    id: string;
  };
  const turn = await send('POST', `/api/chats/${chat.id}/turns`, { message: 'Block.' });
  expect(turn.status).toBe(200);
  expect(await waitUntil(() => block.started.includes('chat'), 5_000)).toBe(true);

  const alice = await connect('alice');
  const progress: Progress[] = [];
  const waiting = alice.callTool({ name: 'block', arguments: { value: 'mcp' } }, undefined, {
    onprogress: (update) => progress.push(update),
  });
  expect(await waitUntil(() => deps.toolCallSlots.waiting(users.alice.id) === 1, 5_000)).toBe(true);
  expect(await waitUntil(() => progress.length === 1, 5_000)).toBe(true);
  expect(progress).toEqual([
    {
      progress: 1,
      message:
        "Waiting for a free slot: 1 of this user's tool calls are running, the most one user may run at once (MANGO_USER_MAX_TOOL_CALLS=1); this call starts when one ends.",
    },
  ]);

  // An MCP call cancelled by its client while it waits leaves the queue and never runs.
  const controller = new AbortController();
  const cancelled = alice.callTool({ name: 'block', arguments: { value: 'cancelled' } }, undefined, {
    signal: controller.signal,
  });
  cancelled.catch(() => {});
  expect(await waitUntil(() => deps.toolCallSlots.waiting(users.alice.id) === 2, 5_000)).toBe(true);
  controller.abort();
  expect(await waitUntil(() => deps.toolCallSlots.waiting(users.alice.id) === 1, 5_000)).toBe(true);

  const bob = await connect('bob');
  const bobCall = bob.callTool({ name: 'block', arguments: { value: 'bob' } });
  expect(await waitUntil(() => block.started.includes('bob'), 5_000)).toBe(true);
  block.release('bob');
  expect((await bobCall).isError).toBeFalsy();

  // The chat's call ends: the waiting MCP call gets the slot, and the turn goes on to its answer.
  block.release('chat');
  expect(await waitUntil(() => block.started.includes('mcp'), 5_000)).toBe(true);
  expect((await collectSseEvents(turn)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  block.release('mcp');
  const result = await waiting;
  expect(result.isError).toBeFalsy();
  expect(block.started).toEqual(['chat', 'bob', 'mcp']);
  expect(deps.toolCallSlots.running(users.alice.id)).toBe(0);
});
