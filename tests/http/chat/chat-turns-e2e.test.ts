/**
 * End to end over real HTTP on 127.0.0.1: a real server (`startServer`, port 0, on SQLite and on PostgreSQL)
 * with every builtin tool and the real provider registry, its `openai-compatible` adapter pointed at the
 * replay server through `OPENAI_COMPATIBLE_BASE_URL`. A chat is bound to a temp dir inside the user's granted
 * workspaces; the scripted model calls `grep`, then `read_file`, then answers. Also: the second turn replays
 * the whole history, cancel mid-shell-call kills the shell, the iteration limit, invalid JSON arguments,
 * client disconnect, 409, per-user isolation, 422/503 and the providers list.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../../src/config.ts';
import { type RunningServer, startServer } from '../../../src/server/start-server.ts';
import { liveProcessesWith } from '../../helpers/live-processes.ts';
import { type ReplayServer, startReplayServer } from '../../helpers/replay-server.ts';
import { chatBody } from '../../helpers/scripted-provider-streams.ts';
import { collectSseEvents, readSseEvents } from '../../helpers/sse-client.ts';
import { BACKENDS, createPostgresDatabase } from '../../helpers/test-database.ts';
import { holdsFor, waitUntil } from '../../helpers/wait-until.ts';

let replay: ReplayServer;
let server: RunningServer;
let root: string;
let project: string;
let dataDirectory: string;
let alice: string;
let bob: string;
let postgres: { url: string; drop: () => Promise<void> } | undefined;

async function api(method: string, path: string, token: string, body?: unknown, signal?: AbortSignal) {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  });
}

async function json(method: string, path: string, token: string, body?: unknown) {
  const response = await api(method, path, token, body);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

async function createChat(token = alice, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await json('POST', '/api/chats', token, {
    provider: 'openai-compatible',
    model: 'test-model',
    workingDirectory: project,
    ...extra,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const call = (id: string, name: string, fragments: string[]) => ({ id, name, fragments });

describe.each(BACKENDS)('chat API over real HTTP on %s', (backend) => {
  beforeAll(async () => {
    replay = startReplayServer();
    postgres = backend === 'postgres' ? await createPostgresDatabase() : undefined;
    root = await realpath(await mkdtemp(join(tmpdir(), 'mango-chat-e2e-')));
    // The shell sandbox's uid must be able to reach the working directory (mkdtemp makes it 0700).
    await chmod(root, 0o755);
    project = join(root, 'project');
    dataDirectory = join(root, 'data');
    await mkdir(join(project, 'src'), { recursive: true });
    await writeFile(join(project, 'src', 'notes.txt'), 'first line\nTODO: ship the chat API\nlast line\n');
    await writeFile(join(root, 'a-file.txt'), 'not a directory');
    let printed = '';
    server = await startServer(
      {
        host: '127.0.0.1',
        port: 0,
        dataDirectory,
        workspacesDirectory: join(root, 'workspaces'),
        databaseUrl: postgres?.url,
        shutdownTimeoutMs: 2_000,
        maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
      },
      {
        print: (line) => {
          printed += line;
        },
        env: {
          MANGO_MAX_TOOL_ITERATIONS: '3',
          OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
        },
      },
    );
    alice = /^\s+(mango_\S+)$/m.exec(printed)![1]!;
    bob = (await server.deps.users.create('bob')).token;
    // The chats below work in the project and its parent (never the data directory inside it).
    const admin = await server.deps.users.findByName('admin');
    await server.deps.workspaces.grant(admin!.id, project, false);
    await mkdir(join(root, 'shared'), { recursive: true });
    await writeFile(join(root, 'shared', 'a-file.txt'), 'not a directory');
    await server.deps.workspaces.grant(admin!.id, join(root, 'shared'), false);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    await replay?.close();
    await postgres?.drop();
    await rm(root, { recursive: true, force: true });
  });

  test('the server runs on the backend under test', () => {
    expect(server.database.dialect).toBe(backend === 'postgres' ? 'postgres' : 'sqlite');
  });

  test('GET /api/providers lists every provider; only the configured one is available', async () => {
    const { status, body } = await json('GET', '/api/providers', alice);
    expect(status).toBe(200);
    expect(body.providers).toEqual([
      { id: 'openai', available: false, reason: 'OPENAI_API_KEY is not set.' },
      { id: 'openai-compatible', available: true },
      { id: 'gemini', available: false, reason: 'GEMINI_API_KEY is not set.' },
      { id: 'gemini-generate-content', available: false, reason: 'GEMINI_API_KEY is not set.' },
      { id: 'anthropic', available: false, reason: 'ANTHROPIC_API_KEY is not set.' },
    ]);
  });

  test('grep, then read_file, then an answer: SSE events, persisted history, and a second turn', async () => {
    const chatId = await createChat(alice, { title: 'Find TODOs' });
    replay.enqueue(
      { body: chatBody({ calls: [call('c1', 'grep', ['{"pattern":"TODO",', '"path":"."}'])] }) },
      { body: chatBody({ calls: [call('c2', 'read_file', ['{"path":"src/notes.txt"}'])] }) },
      { body: chatBody({ text: 'The TODO is on line 2 of src/notes.txt.' }) },
    );
    const response = await api('POST', `/api/chats/${chatId}/turns`, alice, {
      message: 'Where is the TODO?',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = await collectSseEvents(response);
    expect(replay.failures).toEqual([]);

    const kinds = events.map((event) => event.type).filter((type) => type !== 'tool_call_arguments_delta');
    expect(kinds).toEqual([
      'tool_call_started',
      'tool_call_completed',
      'finish',
      'tool_result',
      'tool_call_started',
      'tool_call_completed',
      'finish',
      'tool_result',
      'text_delta',
      'finish',
      'done',
    ]);
    const results = events.filter((event) => event.type === 'tool_result');
    expect(results.map((event) => [event.callId, event.name, event.ok])).toEqual([
      ['c1', 'grep', true],
      ['c2', 'read_file', true],
    ]);
    expect(JSON.stringify(results[0]!.result)).toContain('TODO: ship the chat API');
    expect(JSON.stringify(results[1]!.result)).toContain('last line');
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });

    // The persisted history, in order, one row per item.
    const shown = await json('GET', `/api/chats/${chatId}`, alice);
    expect(shown.status).toBe(200);
    expect(shown.body.chat).toMatchObject({ id: chatId, title: 'Find TODOs', workingDirectory: project });
    const messages = shown.body.messages as { seq: number; role: string; item: Record<string, unknown> }[];
    expect(messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(messages.map((message) => [message.role, message.item.type])).toEqual([
      ['user', 'user_text'],
      ['assistant', 'tool_call'],
      ['tool', 'tool_result'],
      ['assistant', 'tool_call'],
      ['tool', 'tool_result'],
      ['assistant', 'assistant_text'],
    ]);
    expect(messages[5]!.item.text).toBe('The TODO is on line 2 of src/notes.txt.');

    // Turn 2: the request to the provider carries the whole history in Chat Completions shape.
    replay.enqueue({
      body: chatBody({ text: 'You are welcome.' }),
      expectRequest: (request) => {
        const sent = (request.body as { messages: Record<string, unknown>[] }).messages;
        const shape = sent.map((message) =>
          message.role === 'tool' ? `tool:${message.tool_call_id}` : String(message.role),
        );
        expect(shape).toEqual([
          'system',
          'user',
          'assistant',
          'tool:c1',
          'assistant',
          'tool:c2',
          'assistant',
          'user',
        ]);
        expect(sent[1]!.content).toBe('Where is the TODO?');
        expect(sent[7]!.content).toBe('Thanks!');
        expect(String(sent[5]!.content)).toContain('last line');
      },
    });
    const second = await collectSseEvents(
      await api('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Thanks!' }),
    );
    expect(replay.failures).toEqual([]);
    expect(second.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect((await json('GET', `/api/chats/${chatId}`, alice)).body.messages).toHaveLength(8);
  });

  test('cancel mid-shell-call: done{cancelled} within one second and the shell process is gone', async () => {
    const enabled = await json('PUT', '/api/settings/tools/bash', alice, {
      enabled: true,
      // The shell's cancel is the subject here; approvals are tested in chat-approvals.test.ts.
      parameters: { approval: 'never' },
    });
    expect(enabled.status).toBe(200);
    const chatId = await createChat();
    const marker = `30.${String(Date.now() % 100_000).padStart(5, '0')}1`;
    replay.enqueue({
      body: chatBody({ calls: [call('s1', 'bash', [JSON.stringify({ command: `sleep ${marker}` })])] }),
    });
    const response = await api('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Wait a bit.' });
    const events: Record<string, unknown>[] = [];
    let cancelledAt = 0;
    let doneAt = 0;
    for await (const event of readSseEvents(response)) {
      events.push(event);
      if (event.type === 'tool_call_completed') {
        expect(await waitUntil(async () => (await liveProcessesWith(marker)).length > 0, 10_000)).toBe(true);
        cancelledAt = performance.now();
        expect(await json('POST', `/api/chats/${chatId}/cancel`, alice)).toEqual({
          status: 200,
          body: { cancelled: true },
        });
      }
      if (event.type === 'done') doneAt = performance.now();
    }
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(doneAt - cancelledAt).toBeLessThan(1_000);
    const result = events.find((event) => event.type === 'tool_result');
    expect(result).toMatchObject({ callId: 's1', ok: false, error: { classification: 'cancelled' } });
    expect(await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 1_000)).toBe(true);
    expect(server.deps.chats.isBusy(chatId)).toBe(false);
    // Cancelling with no turn running is not an error.
    expect((await json('POST', `/api/chats/${chatId}/cancel`, alice)).body).toEqual({
      cancelled: false,
      reason: 'No turn is running in this chat.',
    });
  });

  test('iteration limit: tools withheld on the last iteration, done{max_iterations} if the model insists', async () => {
    const chatId = await createChat();
    const clock = (id: string) => ({
      body: chatBody({ calls: [call(id, 'get_current_datetime', ['{}'])] }),
    });
    const before = replay.requests.length;
    replay.enqueue(clock('t1'), clock('t2'), clock('t3'));
    const events = await collectSseEvents(
      await api('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Loop forever.' }),
    );
    expect(replay.failures).toEqual([]);
    const sent = replay.requests.slice(before).map((request) => request.body as { tools?: unknown[] });
    expect(sent).toHaveLength(3);
    expect(sent[0]!.tools?.length).toBeGreaterThan(0);
    expect(sent[2]!.tools ?? []).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'max_iterations' });
  });

  test('invalid JSON arguments: the call fails with validation_failed, the model is told, the turn goes on', async () => {
    const chatId = await createChat();
    replay.enqueue(
      { body: chatBody({ calls: [call('j1', 'read_file', ['{"path": "src/no', 'tes.txt"'])] }) },
      {
        body: chatBody({ text: 'Sorry, retrying is not needed.' }),
        expectRequest: (request) => {
          const sent = (request.body as { messages: Record<string, unknown>[] }).messages;
          const toolMessage = sent.find((message) => message.role === 'tool');
          expect(toolMessage?.tool_call_id).toBe('j1');
          expect(String(toolMessage?.content)).toContain('validation_failed');
        },
      },
    );
    const events = await collectSseEvents(
      await api('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Read the notes.' }),
    );
    expect(replay.failures).toEqual([]);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      callId: 'j1',
      ok: false,
      error: { classification: 'validation_failed' },
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('a turn answers 200 before the model says anything; a second concurrent turn is 409', async () => {
    const chatId = await createChat();
    const requestsBefore = replay.requests.length;
    replay.enqueue({ chunks: [], ending: 'hang' });
    const response = await api('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Hang.' });
    expect(response.status).toBe(200);
    const busy = await json('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Me too.' });
    expect([busy.status, busy.body.code]).toEqual([409, 'busy']);
    // Cancel only once the model was asked: else its scripted hang stays queued for the next test.
    expect(await waitUntil(() => replay.requests.length > requestsBefore, 5_000)).toBe(true);
    await json('POST', `/api/chats/${chatId}/cancel`, alice);
    expect((await collectSseEvents(response)).at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
  });

  test('a client that disconnects does not stop its turn; it re-attaches after its last id and cancels', async () => {
    const chatId = await createChat();
    // The role chunk and one text chunk, then the provider stalls until the turn is cancelled.
    const [roleChunk, textChunk] = chatBody({ text: 'Thinking' }).split(/(?<=\n\n)/);
    replay.enqueue({ chunks: [roleChunk!, textChunk!], ending: 'hang' });
    const controller = new AbortController();
    const response = await api(
      'POST',
      `/api/chats/${chatId}/turns`,
      alice,
      { message: 'Hang.' },
      controller.signal,
    );
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('"text_delta"')) text += new TextDecoder().decode((await reader.read()).value);
    const lastId = /id: (\d+)\ndata: \{"type":"text_delta"/.exec(text)?.[1];
    expect(lastId).toBe('1');
    controller.abort();
    await reader.cancel().catch(() => {});
    // What did not happen: the disconnect did not end the turn, watched for a while.
    expect(await holdsFor(() => server.deps.chats.isBusy(chatId), 300)).toBe(true);

    const again = await api('GET', `/api/chats/${chatId}/turns/current/events?after=${lastId}`, alice);
    expect(again.status).toBe(200);
    expect(await json('POST', `/api/chats/${chatId}/cancel`, alice)).toEqual({
      status: 200,
      body: { cancelled: true },
    });
    expect(await collectSseEvents(again)).toEqual([
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(server.deps.chats.isBusy(chatId)).toBe(false);
    // The history is consistent: the user's message and the text streamed so far were kept.
    const shown = await json('GET', `/api/chats/${chatId}`, alice);
    expect(shown.body.messages.map((message: { item: unknown }) => message.item)).toEqual([
      { type: 'user_text', text: 'Hang.' },
      { type: 'assistant_text', text: 'Thinking' },
    ]);
    // The whole turn replays from the start, and a bad `after` is a clear 422.
    const whole = await collectSseEvents(
      await api('GET', `/api/chats/${chatId}/turns/current/events`, alice),
    );
    expect(whole.map((event) => event.type)).toEqual(['text_delta', 'done']);
    expect(await json('GET', `/api/chats/${chatId}/turns/current/events?after=-1`, alice)).toEqual({
      status: 422,
      body: {
        error: 'after must be the sequence number of an event (an integer of 0 or more); got "-1".',
        code: 'invalid_request',
      },
    });
  });

  test('a client that disconnects mid-shell-call leaves the shell running; cancel kills it', async () => {
    await json('PUT', '/api/settings/tools/bash', alice, {
      enabled: true,
      // The shell's cancel is the subject here; approvals are tested in chat-approvals.test.ts.
      parameters: { approval: 'never' },
    });
    const chatId = await createChat();
    const marker = `31.${String(Date.now() % 100_000).padStart(5, '0')}3`;
    replay.enqueue({
      body: chatBody({ calls: [call('d1', 'bash', [JSON.stringify({ command: `sleep ${marker}` })])] }),
    });
    const controller = new AbortController();
    const response = await api(
      'POST',
      `/api/chats/${chatId}/turns`,
      alice,
      { message: 'Wait.' },
      controller.signal,
    );
    for await (const event of readSseEvents(response)) {
      if (event.type === 'tool_call_completed') break;
    }
    expect(await waitUntil(async () => (await liveProcessesWith(marker)).length > 0, 10_000)).toBe(true);
    controller.abort();
    // What did not happen: the disconnect did not kill the shell, watched for a while.
    expect(await holdsFor(async () => (await liveProcessesWith(marker)).length > 0, 500)).toBe(true);
    expect((await json('POST', `/api/chats/${chatId}/cancel`, alice)).body).toEqual({ cancelled: true });
    expect(await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 2_000)).toBe(true);
    expect(await waitUntil(() => !server.deps.chats.isBusy(chatId), 2_000)).toBe(true);
  });

  test("per-user isolation: another user's chat is 404 on every route, and absent from their list", async () => {
    const chatId = await createChat(alice);
    for (const [method, path, body] of [
      ['GET', `/api/chats/${chatId}`, undefined],
      ['DELETE', `/api/chats/${chatId}`, undefined],
      ['POST', `/api/chats/${chatId}/cancel`, undefined],
      ['POST', `/api/chats/${chatId}/turns`, { message: 'hi' }],
    ] as const) {
      const answer = await json(method, path, bob, body);
      expect([method, path, answer.status, answer.body.code]).toEqual([method, path, 404, 'not_found']);
    }
    expect((await json('GET', '/api/chats', bob)).body).toEqual({ chats: [] });
    const listed = (await json('GET', '/api/chats', alice)).body.chats as { id: string }[];
    expect(listed.map((chat) => chat.id)).toContain(chatId);
    expect((await json('GET', `/api/chats/${chatId}`, alice)).status).toBe(200);
    expect((await json('DELETE', `/api/chats/${chatId}`, alice)).status).toBe(204);
    expect((await json('GET', `/api/chats/${chatId}`, alice)).status).toBe(404);
  });

  test.each([
    [
      'a directory that does not exist',
      { workingDirectory: '/definitely/not/here' },
      'invalid_working_directory',
    ],
    [
      "a directory outside the user's workspaces",
      { workingDirectory: tmpdir() },
      'invalid_working_directory',
    ],
    [
      'a file instead of a directory',
      { workingDirectory: 'ROOT/shared/a-file.txt' },
      'invalid_working_directory',
    ],
    ['a relative directory', { workingDirectory: 'project' }, 'invalid_working_directory'],
    ['unrestricted for a user not allowed it', { unrestricted: true }, 'invalid_request'],
    ['an unknown provider', { provider: 'nope' }, 'invalid_request'],
  ])('POST /api/chats with %s is 422 %s', async (_name, override, code) => {
    const body: Record<string, unknown> = {
      provider: 'openai-compatible',
      model: 'm',
      workingDirectory: project,
    };
    for (const [key, value] of Object.entries(override)) {
      body[key] = typeof value === 'string' ? value.replace('ROOT', root) : value;
    }
    const answer = await json('POST', '/api/chats', alice, body);
    expect([answer.status, answer.body.code]).toEqual([422, code]);
  });

  test('a chat whose provider is not configured gets 503 provider_unavailable on a turn', async () => {
    const chatId = await createChat(alice, { provider: 'anthropic' });
    const answer = await json('POST', `/api/chats/${chatId}/turns`, alice, { message: 'hi' });
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('provider_unavailable');
    expect(answer.body.error).toContain('ANTHROPIC_API_KEY is not set.');
  });
});
