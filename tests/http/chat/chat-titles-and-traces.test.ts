/**
 * Chat titles, rename and turn traces through the HTTP API on SQLite and PostgreSQL: the first message
 * names a "New chat", `PATCH /api/chats/:id` renames (validated, per user), and `GET /api/chats/:id`
 * returns each turn's usage, durations, error and trace, the same after a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderEvent } from '../../../src/contracts/provider-event.ts';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import { ScriptedProvider, toolCallEvents } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const toolTurn: ProviderEvent[] = [
  ...toolCallEvents({ id: 'c1', name: 'steps', arguments: {} }),
  { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 100, outputTokens: 7 } },
];
const answer: ProviderEvent[] = [
  { type: 'text_delta', delta: 'All done.' },
  { type: 'finish', reason: 'stop', usage: { inputTokens: 130, outputTokens: 3 } },
];
const failure: ProviderEvent[] = [
  {
    type: 'finish',
    reason: 'error',
    message: 'upstream said 500',
    usage: { inputTokens: 5, outputTokens: 0 },
  },
];

describe.each(BACKENDS)('chat titles and turn traces on %s', (backend) => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  const tokens: Record<string, string> = {};
  // Each test queues the responses its turns get.
  const queue: (readonly ProviderEvent[])[] = [];
  const script = (steps: (readonly ProviderEvent[])[]) => queue.splice(0, queue.length, ...steps);
  const provider = new ScriptedProvider([], {
    id: 'openai',
    repeat: async function* () {
      yield* queue.shift() ?? [{ type: 'finish', reason: 'error', message: 'No response queued.' }];
    },
  });
  const registry = new ToolRegistry();
  registry.register(
    makeTool({
      name: 'steps',
      execute: async (_args, context) => {
        context.onProgress({ type: 'status', message: 'step 1 of 2 done' });
        context.onProgress({ type: 'status', message: 'step 2 of 2 done' });
        return { steps: 2 };
      },
    }),
  );

  const build = () => {
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
    });
    app = createApp(deps);
  };
  const request = (user: string, method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${tokens[user]}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const createChat = async (title?: string) => {
    const response = await request('dana', 'POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: workspace,
      ...(title === undefined ? {} : { title }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string; title: string };
  };

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-chat-titles-')));
    build();
    for (const name of ['dana', 'erik']) {
      const created = await deps.users.create(name);
      tokens[name] = created.token;
      await deps.workspaces.grant(created.user.id, workspace, false);
    }
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  test('the first message names a "New chat"; a later message or a chosen title is kept', async () => {
    const chat = await createChat();
    expect(chat.title).toBe('New chat');
    script([answer, answer]);
    const message =
      '\n  Plan   the Lisbon trip for four people in early May, with a budget and a day-by-day list\nmore';
    await collectSseEvents(await request('dana', 'POST', `/api/chats/${chat.id}/turns`, { message }));
    const named = (await (await request('dana', 'GET', `/api/chats/${chat.id}`)).json()) as {
      chat: { title: string };
    };
    expect(named.chat.title).toBe('Plan the Lisbon trip for four people in early May, with a…');
    await collectSseEvents(
      await request('dana', 'POST', `/api/chats/${chat.id}/turns`, { message: 'Other' }),
    );
    const kept = (await (await request('dana', 'GET', `/api/chats/${chat.id}`)).json()) as {
      chat: { title: string };
    };
    expect(kept.chat.title).toBe('Plan the Lisbon trip for four people in early May, with a…');

    const chosen = await createChat('Taxes 2026');
    script([answer]);
    await collectSseEvents(await request('dana', 'POST', `/api/chats/${chosen.id}/turns`, { message: 'Hi' }));
    const listed = (await (await request('dana', 'GET', '/api/chats')).json()) as {
      chats: { id: string; title: string }[];
    };
    expect(listed.chats.find((entry) => entry.id === chosen.id)?.title).toBe('Taxes 2026');
  });

  test('PATCH renames; bad titles are 422 with the reason; another user gets 404', async () => {
    const chat = await createChat();
    const renamed = await request('dana', 'PATCH', `/api/chats/${chat.id}`, { title: '  Budget review  ' });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { title: string }).title).toBe('Budget review');

    const cases: [unknown, string][] = [
      ['   ', 'title must not be empty.'],
      ['x'.repeat(201), 'title must be at most 200 characters; got 201.'],
      ['two\nlines', 'title must be one line of text without control characters; got U+000A at position 4.'],
      ['a\u0000b', 'title must be valid Unicode text without NUL characters.'],
      ['\ud800', 'title must be valid Unicode text without NUL characters.'],
      ['bell\u0007', 'title must be one line of text without control characters; got U+0007 at position 5.'],
    ];
    for (const [title, error] of cases) {
      const response = await request('dana', 'PATCH', `/api/chats/${chat.id}`, { title });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({ error, code: 'invalid_request' });
    }
    const foreign = await request('erik', 'PATCH', `/api/chats/${chat.id}`, { title: 'Mine now' });
    expect(foreign.status).toBe(404);
    const missing = await request('dana', 'PATCH', '/api/chats/no-such-chat', { title: 'X' });
    expect(missing.status).toBe(404);
    const wrongType = await request('dana', 'PATCH', `/api/chats/${chat.id}`, { title: 7 });
    expect(wrongType.status).toBe(400);

    // Renamed stays renamed: after a restart, and a turn does not replace a chosen title.
    await handle.reopen();
    build();
    script([answer]);
    await collectSseEvents(
      await request('dana', 'POST', `/api/chats/${chat.id}/turns`, { message: 'Hello' }),
    );
    const shown = (await (await request('dana', 'GET', `/api/chats/${chat.id}`)).json()) as {
      chat: { title: string };
    };
    expect(shown.chat.title).toBe('Budget review');
  });

  test('each turn keeps its usage, durations, error and trace, the same after a restart', async () => {
    const chat = await createChat();
    script([toolTurn, answer, failure]);
    const live = await collectSseEvents(
      await request('dana', 'POST', `/api/chats/${chat.id}/turns`, { message: 'Run the steps' }),
    );
    expect(live.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const failed = await collectSseEvents(
      await request('dana', 'POST', `/api/chats/${chat.id}/turns`, { message: 'Again' }),
    );
    expect(failed.at(-1)).toMatchObject({ type: 'done', reason: 'error' });

    await handle.reopen();
    build();
    const shown = (await (await request('dana', 'GET', `/api/chats/${chat.id}`)).json()) as {
      messages: { seq: number }[];
      turns: {
        state: string;
        messageSeqAtStart: number;
        usage: unknown;
        durations: { toolMs: number };
        error: unknown;
        progress: { version: number; dropped: number; events: { at: number; event: unknown }[] };
      }[];
    };
    expect(shown.messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5]);
    const [first, second] = shown.turns;
    expect(shown.turns).toHaveLength(2);
    expect(first).toMatchObject({
      state: 'completed',
      messageSeqAtStart: 0,
      usage: { modelCalls: 2, inputTokens: 230, outputTokens: 10 },
      error: null,
    });
    const durationMs = (live.find((event) => event.type === 'tool_result') as { durationMs: number })
      .durationMs;
    expect(first!.durations.toolMs).toBe(durationMs);
    expect(first!.progress).toEqual({
      version: 1,
      dropped: 0,
      events: [
        {
          at: 1,
          event: { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 100, outputTokens: 7 } },
        },
        {
          at: 2,
          event: {
            type: 'tool_progress',
            callId: 'c1',
            name: 'steps',
            progress: { type: 'status', message: 'step 1 of 2 done' },
          },
        },
        {
          at: 2,
          event: {
            type: 'tool_progress',
            callId: 'c1',
            name: 'steps',
            progress: { type: 'status', message: 'step 2 of 2 done' },
          },
        },
        { at: 3, event: { type: 'tool_result', callId: 'c1', name: 'steps', ok: true, durationMs } },
        { at: 3, event: { type: 'finish', reason: 'stop', usage: { inputTokens: 130, outputTokens: 3 } } },
        { at: 4, event: { type: 'done', reason: 'completed' } },
      ],
    });
    const failedDone = failed.at(-1) as { message: string };
    expect(second).toMatchObject({
      state: 'error',
      messageSeqAtStart: 4,
      usage: { modelCalls: 1, inputTokens: 5, outputTokens: 0 },
      error: { message: failedDone.message },
    });
    expect(second!.progress.events.map((entry) => entry.event)).toEqual([
      {
        type: 'finish',
        reason: 'error',
        message: 'upstream said 500',
        usage: { inputTokens: 5, outputTokens: 0 },
      },
      failedDone,
    ]);
  });
});
