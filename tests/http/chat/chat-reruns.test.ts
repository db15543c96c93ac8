/**
 * Reruns over the real database chat repository, on SQLite and PostgreSQL, through the HTTP routes in
 * process: regenerate, retry and edit replace the chat from a user message on, as one turn of the
 * normal path; the model is told which replaced calls ran; the freshness ledger forgets what the
 * replaced part read and keeps what the kept part read; the model changes within a chat, the provider
 * never does.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConversationItem } from '../../../src/contracts/conversation-item.ts';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import {
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

interface ShownChat {
  chat: { model: string; provider: string };
  messages: { id: string; seq: number; role: string; item: ConversationItem }[];
  turns: { state: string; messageSeqAtStart: number }[];
}

const NOTE_START = '[Note from Mango Tools, not written by the user:';

describe.each(BACKENDS)('reruns over the %s chat repository', (backend) => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  let clock = FIXED_NOW;
  let steps: ScriptStep[] = [];
  let provider: ScriptedProvider;
  const registry = new ToolRegistry();
  // A tool that records a read of the file its argument names, as read_file would.
  registry.register(
    makeTool({
      name: 'note_read',
      execute: async (args, context) => {
        const path = join(workspace, (args as { value: string }).value);
        await context.ledger.put({
          path,
          sha256: 'a'.repeat(64),
          size: 1,
          mtimeMs: 1,
          coveredThrough: 1,
          complete: true,
        });
        return { read: path };
      },
    }),
  );

  const request = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const shown = async (chatId: string) =>
    (await (await request('GET', `/api/chats/${chatId}`)).json()) as ShownChat;
  const turn = async (method: string, path: string, body?: unknown) => {
    clock += 1_000;
    const response = await request(method, path, body);
    expect(response.status).toBe(200);
    return collectSseEvents(response);
  };
  const newChat = async () =>
    (
      (await (
        await request('POST', '/api/chats', { provider: 'openai', model: 'm1', workingDirectory: workspace })
      ).json()) as { id: string }
    ).id;
  const texts = (chat: ShownChat) =>
    chat.messages.map((message) => [
      message.seq,
      message.item.type,
      'text' in message.item ? message.item.text : message.item.type === 'tool_call' ? message.item.name : '',
    ]);

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-reruns-')));
    provider = new ScriptedProvider([], {
      id: 'openai',
      repeat: (modelRequest) => {
        const step = steps.shift();
        if (step === undefined) throw new Error('the test scripted no more responses');
        return (async function* () {
          if (typeof step === 'function') yield* step(modelRequest);
          else yield* step;
        })();
      },
    });
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => clock,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
    });
    app = createApp(deps);
    const dana = await deps.users.create('dana');
    token = dana.token;
    await deps.workspaces.grant(dana.user.id, workspace, false);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });
  beforeEach(() => {
    provider.requests.length = 0;
  });

  test('regenerate replaces the last answer, tells the model which replaced calls ran, and forgets their reads only', async () => {
    const chatId = await newChat();
    steps = [
      toolCallsResponse([{ id: 'k1', name: 'note_read', arguments: { value: 'kept.txt' } }]),
      textResponse('Kept answer.'),
    ];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'First' });
    steps = [
      toolCallsResponse([{ id: 'r1', name: 'note_read', arguments: { value: 'replaced.txt' } }]),
      textResponse('Old answer.'),
    ];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Second' });
    const ledger = deps.ledgerForChat(chatId);
    expect((await ledger.get(join(workspace, 'replaced.txt')))?.complete).toBe(true);

    steps = [textResponse('New answer.')];
    const events = await turn('POST', `/api/chats/${chatId}/turns/regenerate`);
    const deltas = events.filter((event) => event.type === 'text_delta').map((event) => event.delta);
    expect(deltas.join('')).toBe('New answer.');
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const after = await shown(chatId);
    expect(texts(after)).toEqual([
      [1, 'user_text', 'First'],
      [2, 'tool_call', 'note_read'],
      [3, 'tool_result', ''],
      [4, 'assistant_text', 'Kept answer.'],
      [9, 'user_text', 'Second'],
      [10, 'assistant_text', 'New answer.'],
    ]);
    expect(after.turns.map((entry) => [entry.state, entry.messageSeqAtStart])).toEqual([
      ['completed', 0],
      ['completed', 8],
    ]);
    const sent = provider.requests.at(-1)!.history;
    expect(sent.slice(0, 4).map((item) => item.type)).toEqual([
      'user_text',
      'tool_call',
      'tool_result',
      'assistant_text',
    ]);
    const last = sent.at(-1)!;
    expect(last.type).toBe('user_text');
    const text = last.type === 'user_text' ? last.text : '';
    expect(text.startsWith(NOTE_START)).toBe(true);
    expect(text).toContain('- note_read {"value":"replaced.txt"}\n]');
    expect(text.endsWith('\n\nSecond')).toBe(true);
    expect(await ledger.get(join(workspace, 'replaced.txt'))).toBeUndefined();
    expect((await ledger.get(join(workspace, 'kept.txt')))?.complete).toBe(true);

    // The next turn's history carries the note again: the effects are still there.
    steps = [textResponse('Third answer.')];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Third' });
    const replayed = provider.requests.at(-1)!.history;
    expect(replayed.map((item) => item.type)).toEqual([
      'user_text',
      'tool_call',
      'tool_result',
      'assistant_text',
      'user_text',
      'assistant_text',
      'user_text',
    ]);
    const carried = replayed[4]!;
    expect(
      carried.type === 'user_text' && carried.text.startsWith(NOTE_START) && carried.text.endsWith('Second'),
    ).toBe(true);
  });

  test('edit replaces a user message and everything after it; the rerun runs from the edited text', async () => {
    const chatId = await newChat();
    steps = [textResponse('A1')];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Q1' });
    steps = [textResponse('A2')];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Q2' });
    const first = (await shown(chatId)).messages[0]!;
    steps = [textResponse('A1 edited')];
    await turn('POST', `/api/chats/${chatId}/messages/${first.id}/edit`, { message: 'Q1 edited' });
    const after = await shown(chatId);
    expect(texts(after)).toEqual([
      [5, 'user_text', 'Q1 edited'],
      [6, 'assistant_text', 'A1 edited'],
    ]);
    expect(after.turns.map((entry) => entry.messageSeqAtStart)).toEqual([4]);
    // No replaced call ran: the model gets the edited text alone, with no history before it.
    expect(provider.requests.at(-1)!.history).toEqual([{ type: 'user_text', text: 'Q1 edited' }]);

    // A replaced message cannot be edited again; an answer cannot be edited at all.
    const replaced = await request('POST', `/api/chats/${chatId}/messages/${first.id}/edit`, {
      message: 'x',
    });
    expect(replaced.status).toBe(404);
    expect(await replaced.json()).toEqual({
      error: `Chat ${chatId} has no message ${first.id} (or it was replaced).`,
      code: 'not_found',
    });
    const answer = after.messages[1]!;
    const refused = await request('POST', `/api/chats/${chatId}/messages/${answer.id}/edit`, {
      message: 'x',
    });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toEqual({
      error: `Only the user's messages can be edited; message ${answer.id} is a assistant_text.`,
      code: 'invalid_request',
    });
    const empty = await request('POST', `/api/chats/${chatId}/messages/${after.messages[0]!.id}/edit`, {
      message: '  ',
    });
    expect(empty.status).toBe(422);
    // Refusals before the claim leave no turn record.
    expect((await shown(chatId)).turns).toHaveLength(1);
  });

  test('retry runs the message of a failed turn again, and only then', async () => {
    const chatId = await newChat();
    const none = await request('POST', `/api/chats/${chatId}/turns/regenerate`);
    expect(none.status).toBe(409);
    expect(await none.json()).toEqual({
      error: `Chat ${chatId} has no message to answer again.`,
      code: 'nothing_to_rerun',
    });
    steps = [[{ type: 'finish', reason: 'error', message: 'provider said 500' }]];
    const failed = await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Q' });
    expect(failed.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    steps = [textResponse('Answer.')];
    const retried = await turn('POST', `/api/chats/${chatId}/turns/retry`);
    expect(retried.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(texts(await shown(chatId))).toEqual([
      [2, 'user_text', 'Q'],
      [3, 'assistant_text', 'Answer.'],
    ]);
    const again = await request('POST', `/api/chats/${chatId}/turns/retry`);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: `Only a turn that failed (error or lost) can be retried; chat ${chatId}'s last turn is completed. Regenerate to answer it again anyway.`,
      code: 'nothing_to_rerun',
    });
  });

  test("the model changes from the next turn on; the provider is refused; other users' chats are not found", async () => {
    const chatId = await newChat();
    const changed = await request('PATCH', `/api/chats/${chatId}`, { model: ' m2 ' });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toMatchObject({ id: chatId, model: 'm2', provider: 'openai' });
    steps = [textResponse('ok')];
    await turn('POST', `/api/chats/${chatId}/turns`, { message: 'Hi' });
    expect(provider.requests.map((entry) => entry.model)).toEqual(['m2']);
    const otherProvider = await request('PATCH', `/api/chats/${chatId}`, {
      provider: 'anthropic',
      model: 'claude',
    });
    expect(otherProvider.status).toBe(422);
    expect(await otherProvider.json()).toEqual({
      error: `A chat's provider cannot change (this chat's is "openai", got "anthropic"): its history holds items of that provider that another one cannot read. Start a new chat with provider "anthropic" instead.`,
      code: 'invalid_request',
    });
    const nothing = await request('PATCH', `/api/chats/${chatId}`, {});
    expect(nothing.status).toBe(422);
    const blank = await request('PATCH', `/api/chats/${chatId}`, { model: '', title: 'Renamed' });
    expect(blank.status).toBe(422);
    expect(await blank.json()).toEqual({
      error: 'model must be 1–200 characters, got 0.',
      code: 'invalid_request',
    });
    expect((await shown(chatId)).chat.model).toBe('m2');
    const both = await request('PATCH', `/api/chats/${chatId}`, { model: 'm3', title: 'Renamed' });
    expect(await both.json()).toMatchObject({ model: 'm3', title: 'Renamed' });

    const eve = await deps.users.create('eve');
    for (const [method, path, body] of [
      ['PATCH', `/api/chats/${chatId}`, { model: 'x' }],
      ['POST', `/api/chats/${chatId}/turns/regenerate`, undefined],
      ['POST', `/api/chats/${chatId}/turns/retry`, undefined],
      ['POST', `/api/chats/${chatId}/messages/any/edit`, { message: 'x' }],
    ] as const) {
      const response = await app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${eve.token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      expect([path, response.status]).toEqual([path, 404]);
    }
  });

  test('the OpenAPI document states the rerun routes and the PATCH body', async () => {
    const document = (await (await request('GET', '/api/openapi.json')).json()) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
    };
    const statuses = ['200', '400', '401', '404', '409', '413', '422', '429', '503'];
    for (const [path, operationId] of [
      ['/api/chats/{id}/turns/regenerate', 'regenerateTurn'],
      ['/api/chats/{id}/turns/retry', 'retryTurn'],
      ['/api/chats/{id}/messages/{messageId}/edit', 'editMessage'],
    ] as const) {
      const operation = document.paths[path]!.post!;
      expect([operation.operationId, Object.keys(operation.responses).sort()]).toEqual([
        operationId,
        statuses,
      ]);
    }
    expect(document.paths['/api/chats/{id}']!.patch!.operationId).toBe('updateChat');
  });
});
