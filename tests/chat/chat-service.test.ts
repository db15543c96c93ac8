import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatError, type ChatErrorCode } from '../../src/chat/chat-errors.ts';
import type { ChatRepository } from '../../src/chat/chat-repository.ts';
import { ChatService, type ChatServiceDependencies } from '../../src/chat/chat-service.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { createTurnEventStream } from '../../src/http/chat/turn-sse.ts';
import { INTERRUPTED_CALL_MESSAGE } from '../../src/model-loop/history-repair.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import {
  hangUntilAborted,
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../helpers/scripted-provider.ts';
import { createTestWorkspaces, type TestWorkspaces } from '../helpers/test-workspaces.ts';
import { createTurnTools, loadRuntime, yieldTurns } from '../helpers/turn-tools.ts';

let temporary: string;
let root: string;
let project: string;
let outside: string;
let workspaces: TestWorkspaces;

beforeAll(async () => {
  temporary = realpathSync(mkdtempSync(join(tmpdir(), 'mango-chat-')));
  root = join(temporary, 'root');
  project = join(root, 'project');
  outside = join(temporary, 'outside');
  mkdirSync(project, { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, 'file.txt'), 'x');
  symlinkSync(outside, join(root, 'escape'));
  symlinkSync(project, join(root, 'alias'));
  workspaces = createTestWorkspaces();
  await workspaces.service.grant('u1', root, false);
});

afterAll(() => {
  rmSync(temporary, { recursive: true, force: true });
  workspaces.dispose();
});

const OUTSIDE =
  'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).';

/** Timers that never fire: abandoned test turns leave no 30-second budget timer behind. */
const idleTimers = { setTimeout: () => 0, clearTimeout: () => {} };

function createService(
  provider: ModelProvider | (() => ModelProvider),
  overrides: Partial<ChatServiceDependencies> = {},
) {
  const { registry, probe } = createTurnTools();
  const repository = overrides.repository ?? new InMemoryChatRepository();
  let clock = Date.parse('2026-01-01T00:00:00Z');
  let id = 0;
  const service = new ChatService({
    repository,
    createProvider: typeof provider === 'function' ? provider : () => provider,
    loadToolRuntime: () => loadRuntime(registry),
    createLedger: () => new InMemoryFreshnessLedger(),
    workspaces: workspaces.service,
    now: () => clock++,
    createId: () => `chat-${++id}`,
    executeOptions: { registry, timers: idleTimers },
    ...overrides,
  });
  return { service, repository, probe };
}

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function expectChatError(promise: Promise<unknown>, code: ChatErrorCode, message?: string) {
  try {
    await promise;
  } catch (error) {
    expect(ChatError.isInstance(error)).toBe(true);
    expect((error as ChatError).code).toBe(code);
    if (message !== undefined) expect((error as ChatError).message).toBe(message);
    return;
  }
  throw new Error(`expected a ChatError ${code}`);
}

const chatInput = { provider: 'openai', model: 'gpt-test' };

describe('ChatService.createChat: working directory', () => {
  test('binds a directory inside a workspace by real path, confined; omitted = the personal workspace', async () => {
    const { service } = createService(new ScriptedProvider([]));
    const chat = await service.createChat('u1', { ...chatInput, workingDirectory: join(root, 'alias') });
    expect(chat).toEqual({
      id: 'chat-1',
      userId: 'u1',
      title: 'New chat',
      workingDirectory: project,
      confined: true,
      provider: 'openai',
      model: 'gpt-test',
      systemPrompt: null,
      createdAt: '2026-01-01T00:00:00.000Z',
      lastActivityAt: '2026-01-01T00:00:00.000Z',
      pinnedAt: null,
      archivedAt: null,
    });
    const personal = join(workspaces.workspacesDirectory, 'u1');
    const unbound = await service.createChat('u1', chatInput);
    expect([unbound.workingDirectory, unbound.confined]).toEqual([personal, true]);
    mkdirSync(join(personal, 'notes'), { recursive: true });
    const home = await service.createChat('u1', { ...chatInput, workingDirectory: '~/notes' });
    expect(home.workingDirectory).toBe(join(personal, 'notes'));
  });

  test('unrestricted only for a user allowed it', async () => {
    const { service } = createService(new ScriptedProvider([]));
    await expectChatError(
      service.createChat('u1', { ...chatInput, workingDirectory: project, unrestricted: true }),
      'invalid_request',
      'This user may not have unrestricted chats (reaching all of their workspaces at once); an operator can allow it with `mango user set NAME --allow-unrestricted`. Without it, a chat is confined to its working directory.',
    );
    await workspaces.service.setUnrestrictedAllowed('u1', true);
    try {
      const chat = await service.createChat('u1', {
        ...chatInput,
        workingDirectory: project,
        unrestricted: true,
      });
      expect(chat.confined).toBe(false);
      await workspaces.service.setUnrestrictedAllowed('u1', false);
      // Allowance withdrawn: the chat reports (and is) confined from now on.
      expect((await service.getChat('u1', chat.id)).chat.confined).toBe(true);
    } finally {
      await workspaces.service.setUnrestrictedAllowed('u1', false);
    }
  });

  const refusals: { title: string; directory: () => string; message: () => string }[] = [
    {
      title: 'a missing directory inside a workspace',
      directory: () => join(root, 'missing'),
      message: () => `The working directory ${join(root, 'missing')} does not exist.`,
    },
    {
      title: 'a file inside a workspace',
      directory: () => join(root, 'file.txt'),
      message: () => `The working directory ${join(root, 'file.txt')} is not a directory.`,
    },
    { title: 'a directory outside every workspace', directory: () => outside, message: () => OUTSIDE },
    {
      title: 'a missing path outside every workspace',
      directory: () => join(outside, 'nope'),
      message: () => OUTSIDE,
    },
    {
      title: 'a link inside a workspace that escapes it',
      directory: () => join(root, 'escape'),
      message: () => OUTSIDE,
    },
    {
      title: "another user's personal workspace",
      directory: () => join(workspaces.workspacesDirectory, 'u2'),
      message: () => OUTSIDE,
    },
    { title: 'the data directory', directory: () => workspaces.dataDirectory, message: () => OUTSIDE },
    {
      title: 'a relative path',
      directory: () => 'project',
      message: () =>
        'The working directory must be an absolute path or start with ~/ (your personal workspace); got "project".',
    },
  ];
  for (const { title, directory, message } of refusals) {
    test(`refuses ${title} with invalid_working_directory`, async () => {
      const { service } = createService(new ScriptedProvider([]));
      await workspaces.service.personalWorkspace('u2');
      await expectChatError(
        service.createChat('u1', { ...chatInput, workingDirectory: directory() }),
        'invalid_working_directory',
        message(),
      );
    });
  }

  test('refuses a sibling directory that shares the workspace as a name prefix', async () => {
    mkdirSync(`${root}-sibling`, { recursive: true });
    const { service } = createService(new ScriptedProvider([]));
    await expectChatError(
      service.createChat('u1', { ...chatInput, workingDirectory: `${root}-sibling` }),
      'invalid_working_directory',
      OUTSIDE,
    );
  });

  const invalidRequests = [
    {
      input: { provider: 'mystery', model: 'm' },
      message:
        'Unknown provider "mystery". Use one of: openai, openai-compatible, gemini, gemini-generate-content, anthropic.',
    },
    { input: { provider: 'openai', model: '  ' }, message: 'model must be 1–200 characters, got 0.' },
  ];
  for (const { input, message } of invalidRequests) {
    test(`refuses ${JSON.stringify(input)} with invalid_request`, async () => {
      const { service } = createService(new ScriptedProvider([]));
      await expectChatError(service.createChat('u1', input), 'invalid_request', message);
    });
  }
});

describe('ChatService: per-user chats', () => {
  test("another user's chat is not found for every operation", async () => {
    const { service } = createService(new ScriptedProvider([textResponse('hi')]));
    const mine = await service.createChat('u1', { ...chatInput, title: 'Mine' });
    await service.createChat('u2', { ...chatInput, title: 'Theirs' });
    expect((await service.listChats('u1')).map((chat) => chat.title)).toEqual(['Mine']);
    await expectChatError(service.getChat('u2', mine.id), 'not_found', `No chat with id ${mine.id}.`);
    await expectChatError(service.startTurn('u2', mine.id, 'hi'), 'not_found');
    await expectChatError(service.cancelTurn('u2', mine.id), 'not_found');
    await expectChatError(service.deleteChat('u2', mine.id), 'not_found');
    await service.deleteChat('u1', mine.id);
    await expectChatError(service.getChat('u1', mine.id), 'not_found');
    expect(await service.listChats('u1')).toEqual([]);
  });

  test('lists newest first', async () => {
    const { service } = createService(new ScriptedProvider([]));
    for (const title of ['a', 'b', 'c']) await service.createChat('u1', { ...chatInput, title });
    expect((await service.listChats('u1')).map((chat) => chat.title)).toEqual(['c', 'b', 'a']);
  });
});

describe('ChatService: turns', () => {
  test('persists the turn as it runs and replays it in the next turn with the system prompt', async () => {
    const provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'a', name: 'grep', arguments: { value: '1' } }], 'Searching. '),
      textResponse('Found it.'),
      textResponse('Second answer.'),
    ]);
    const { service } = createService(provider);
    const chat = await service.createChat('u1', {
      ...chatInput,
      workingDirectory: project,
      systemPrompt: 'Be brief.',
    });
    const events = await collect(await service.startTurn('u1', chat.id, 'find it'));
    expect(events[events.length - 1]).toEqual({ type: 'done', reason: 'completed' });

    const { messages } = await service.getChat('u1', chat.id);
    expect(messages.map((message) => [message.seq, message.role, message.item.type])).toEqual([
      [1, 'user', 'user_text'],
      [2, 'assistant', 'assistant_text'],
      [3, 'assistant', 'tool_call'],
      [4, 'tool', 'tool_result'],
      [5, 'assistant', 'assistant_text'],
    ]);

    await collect(await service.startTurn('u1', chat.id, 'again'));
    expect(provider.requests[2]?.history).toEqual([
      ...messages.map((message) => message.item),
      { type: 'user_text', text: 'again' },
    ]);
    expect(provider.requests[0]?.systemPrompt).toContain(`Working directory: ${project}`);
    expect(provider.requests[0]?.systemPrompt).toContain('confined to the working directory');
    expect(provider.requests[0]?.systemPrompt?.endsWith('Be brief.')).toBe(true);
  });

  test('a cancel right after the acknowledgement aborts the model request already made: nothing stays queued', async () => {
    // In one process the turn asks its model before the acknowledgement returns, so an immediate cancel
    // ends that request's hang; the next turn gets the next step, not a hang left behind.
    const provider = new ScriptedProvider([hangUntilAborted([]), textResponse('next')]);
    const { service } = createService(provider);
    const chat = await service.createChat('u1', chatInput);
    const first = await service.startTurn('u1', chat.id, 'one');
    expect(provider.requests.length).toBe(1);
    expect(await service.cancelTurn('u1', chat.id)).toEqual({ cancelled: true });
    expect(await collect(first)).toEqual([
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(provider.requests[0]?.signal.aborted).toBe(true);
    const second = await collect(await service.startTurn('u1', chat.id, 'two'));
    expect(second.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(second.filter((event) => event.type === 'text_delta')).toEqual([
      { type: 'text_delta', delta: 'ne' },
      { type: 'text_delta', delta: 'xt' },
    ]);
    expect(provider.requests.length).toBe(2);
  });

  test('a second turn while one runs is busy; cancel frees the chat', async () => {
    const provider = new ScriptedProvider([
      hangUntilAborted([{ type: 'text_delta', delta: 'Hm' }]),
      textResponse('ok'),
    ]);
    const { service } = createService(provider);
    const chat = await service.createChat('u1', chatInput);
    const first = await service.startTurn('u1', chat.id, 'one');
    expect((await first.next()).value).toEqual({ type: 'text_delta', delta: 'Hm' });
    await expectChatError(
      service.startTurn('u1', chat.id, 'two'),
      'busy',
      'This chat is already running a turn; wait for it to end or cancel it.',
    );
    expect(await service.cancelTurn('u1', chat.id)).toEqual({ cancelled: true });
    const rest = await collect(first);
    expect(rest.slice(-1)).toEqual([
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(service.isBusy(chat.id)).toBe(false);
    expect(await service.cancelTurn('u1', chat.id)).toEqual({
      cancelled: false,
      reason: 'No turn is running in this chat.',
    });
    expect((await collect(await service.startTurn('u1', chat.id, 'three'))).slice(-1)).toEqual([
      { type: 'done', reason: 'completed' },
    ]);
  });

  test('concurrent starts: exactly one wins', async () => {
    const { service } = createService(new ScriptedProvider([textResponse('a'), textResponse('b')]));
    const chat = await service.createChat('u1', chatInput);
    const outcomes = await Promise.allSettled([
      service.startTurn('u1', chat.id, 'one'),
      service.startTurn('u1', chat.id, 'two'),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    for (const outcome of outcomes) if (outcome.status === 'fulfilled') await collect(outcome.value);
  });

  test('a follower returned before it is read leaves the turn running to its end, stored', async () => {
    const { service } = createService(new ScriptedProvider([textResponse('All of it.')]));
    const chat = await service.createChat('u1', chatInput);
    const stream = await service.startTurn('u1', chat.id, 'one');
    await stream.return?.();
    const replay = await collect(await service.followTurn('u1', chat.id, 0));
    // Deltas written while an earlier write was in flight may be merged: compare the text they carry.
    const text = replay.map((event) => (event.type === 'text_delta' ? event.delta : '')).join('');
    expect(text).toBe('All of it.');
    expect(replay.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(service.isBusy(chat.id)).toBe(false);
    const { messages } = await service.getChat('u1', chat.id);
    expect(messages.map((message) => message.item)).toEqual([
      { type: 'user_text', text: 'one' },
      { type: 'assistant_text', text: 'All of it.' },
    ]);
  });

  test('a client that leaves the SSE stream mid-tool does not stop the tool; cancel does', async () => {
    const { service, probe } = createService(
      new ScriptedProvider([toolCallsResponse([{ id: 's', name: 'slow' }])]),
    );
    const chat = await service.createChat('u1', chatInput);
    const reader = createTurnEventStream(await service.startTurn('u1', chat.id, 'go'), {
      heartbeatMilliseconds: 0,
    }).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"tool_progress"')) text += decoder.decode((await reader.read()).value);
    expect(text.startsWith('id: 1\ndata: ')).toBe(true);
    await reader.cancel();
    await yieldTurns(20);
    expect(probe.aborted).toEqual([]);
    expect(service.isBusy(chat.id)).toBe(true);
    expect(await service.cancelTurn('u1', chat.id)).toEqual({ cancelled: true });
    while (service.isBusy(chat.id)) await yieldTurns(1);
    expect(probe.aborted).toEqual(['slow']);
    const { messages } = await service.getChat('u1', chat.id);
    expect(messages.map((message) => message.item.type)).toEqual(['user_text', 'tool_call', 'tool_result']);
  });

  test('a follower re-attached after seq N gets exactly the events after N, then the live rest', async () => {
    const { service } = createService(new ScriptedProvider([toolCallsResponse([{ id: 's', name: 'slow' }])]));
    const chat = await service.createChat('u1', chatInput);
    const first = await service.startTurn('u1', chat.id, 'go');
    const seen: { seq: number | undefined; event: TurnEvent }[] = [];
    for (let step = await first.next(); !step.done; step = await first.next()) {
      seen.push({ seq: first.lastSeq, event: step.value });
      if (step.value.type === 'tool_progress') break;
    }
    await first.return?.();
    expect(seen.map((entry) => entry.seq)).toEqual(seen.map((_, index) => index + 1));
    const cut = 2;
    const again = await service.followTurn('u1', chat.id, cut);
    const replayed: TurnEvent[] = [];
    for (let step = await again.next(); !step.done; step = await again.next()) {
      replayed.push(step.value);
      if (replayed.length === seen.length - cut) break;
    }
    expect(replayed).toEqual(seen.slice(cut).map((entry) => entry.event));
    await service.cancelTurn('u1', chat.id);
    const rest = await collect(again);
    expect(rest.map((event) => event.type)).toEqual(['tool_result', 'done']);
    expect(rest.at(-1)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
  });

  test('followTurn of a chat that never ran a turn is not_found', async () => {
    const { service } = createService(new ScriptedProvider([]));
    const chat = await service.createChat('u1', chatInput);
    await expectChatError(
      service.followTurn('u1', chat.id, 0),
      'not_found',
      `Chat ${chat.id} has not run a turn yet.`,
    );
  });

  test('an unconfigured provider is provider_unavailable and leaves the chat free', async () => {
    const { service } = createService(() => {
      throw new Error('OPENAI_API_KEY is not set');
    });
    const chat = await service.createChat('u1', chatInput);
    await expectChatError(
      service.startTurn('u1', chat.id, 'hi'),
      'provider_unavailable',
      'Provider "openai" is not available: OPENAI_API_KEY is not set',
    );
    expect(service.isBusy(chat.id)).toBe(false);
  });

  test('the working directory is checked again at every turn: swapped for a symlink, removed, or revoked', async () => {
    const { service } = createService(new ScriptedProvider([], { repeat: textResponse('ok') }));
    const bound = join(root, 'swapped');
    mkdirSync(bound);
    const chat = await service.createChat('u1', { ...chatInput, workingDirectory: bound });
    expect(chat.workingDirectory).toBe(bound);
    expect((await collect(await service.startTurn('u1', chat.id, 'hi'))).at(-1)).toEqual({
      type: 'done',
      reason: 'completed',
    });

    // Replaced by a link to a directory outside every workspace.
    rmSync(bound, { recursive: true });
    symlinkSync(outside, bound);
    await expectChatError(service.startTurn('u1', chat.id, 'hi'), 'invalid_working_directory', OUTSIDE);
    expect(service.isBusy(chat.id)).toBe(false);

    // A link to another directory inside the workspace: still not the directory the chat was bound to.
    rmSync(bound);
    symlinkSync(project, bound);
    await expectChatError(
      service.startTurn('u1', chat.id, 'hi'),
      'invalid_working_directory',
      `The working directory ${bound} now resolves to ${project}; start a new chat or session to work there.`,
    );

    rmSync(bound);
    await expectChatError(
      service.startTurn('u1', chat.id, 'hi'),
      'invalid_working_directory',
      `The working directory ${bound} does not exist.`,
    );

    // The grant was revoked since the chat was created.
    const inProject = await service.createChat('u1', { ...chatInput, workingDirectory: project });
    expect(await workspaces.service.revoke('u1', root)).toBe(true);
    try {
      await expectChatError(
        service.startTurn('u1', inProject.id, 'hi'),
        'invalid_working_directory',
        OUTSIDE,
      );
    } finally {
      await workspaces.service.grant('u1', root, false);
    }
  });

  test('an empty message is invalid_request', async () => {
    const { service } = createService(new ScriptedProvider([]));
    const chat = await service.createChat('u1', chatInput);
    await expectChatError(
      service.startTurn('u1', chat.id, '  '),
      'invalid_request',
      'message must not be empty.',
    );
  });
});

describe('ChatService: crash and replay', () => {
  test('a call in flight when the server died gets an "interrupted" result on replay', async () => {
    const repository: ChatRepository = new InMemoryChatRepository();
    const firstSteps: ScriptStep[] = [
      toolCallsResponse([
        { id: 'a', name: 'write_note', arguments: { value: '1' } },
        { id: 'b', name: 'stubborn' },
      ]),
    ];
    const before = createService(new ScriptedProvider(firstSteps), { repository });
    const chat = await before.service.createChat('u1', chatInput);
    const stream = await before.service.startTurn('u1', chat.id, 'do both');
    // Read until the second call runs, then abandon the process's work: the "crash".
    for (let step = await stream.next(); !step.done; step = await stream.next()) {
      if (step.value.type === 'tool_progress') break;
    }

    // The process that ran it is "gone": its lease (30 s) lapsed on the next instance's clock.
    const provider = new ScriptedProvider([textResponse('Recovered.')]);
    let later = Date.parse('2026-01-01T00:01:00Z');
    const after = createService(provider, { repository, now: () => later++ });
    const events = await collect(await after.service.startTurn('u1', chat.id, 'continue'));
    expect(events.slice(-1)).toEqual([{ type: 'done', reason: 'completed' }]);
    expect(provider.requests[0]?.history).toEqual([
      { type: 'user_text', text: 'do both' },
      { type: 'tool_call', callId: 'a', name: 'write_note', arguments: '{"value":"1"}' },
      { type: 'tool_call', callId: 'b', name: 'stubborn', arguments: '{}' },
      {
        type: 'tool_result',
        callId: 'a',
        name: 'write_note',
        ok: true,
        output: '{"tool":"write_note","value":"1"}',
      },
      {
        type: 'tool_result',
        callId: 'b',
        name: 'stubborn',
        ok: false,
        output: JSON.stringify({
          error: { classification: 'execution_error', message: INTERRUPTED_CALL_MESSAGE },
        }),
      },
      { type: 'user_text', text: 'continue' },
    ]);
  });
});
