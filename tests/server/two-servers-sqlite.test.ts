/**
 * Two `mango serve` processes on one SQLite file at once. The second one's start must not touch the
 * first one's running turn (recovery only takes over leases whose holder is provably dead), so the
 * rule "one turn at a time per chat" holds across both: the second answers 409 while the first runs a
 * turn, a cancel sent to the second stops the first's turn, and then either runs the next one.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatApi } from '../helpers/chat-api-client.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { collectSseEvents, readSseEvents } from '../helpers/sse-client.ts';

let replay: ReplayServer;
let root: string;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-two-sqlite-')));
}, 30_000);

afterAll(async () => {
  for (const server of servers) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('the second server leaves the first one’s turn alone: 409, cancel through it, then a turn on it', async () => {
  const env = {
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  };
  const first = await startServerProcess(env);
  servers.push(first);
  const token = first.token!;
  const a = chatApi(first.url, token);
  const chatId = await a.createChat();
  const [roleChunk, textChunk] = chatBody({ text: 'Working' }).split(/(?<=\n\n)/);
  replay.enqueue({ chunks: [roleChunk!, textChunk!], ending: 'hang' });
  const turn = await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Long job.' });
  const onFirst = readSseEvents(turn);
  expect((await onFirst.next()).value).toEqual({ type: 'text_delta', delta: 'Working' });

  // Started while the first server's turn runs: its start-up must not free that turn's lease.
  const second = await startServerProcess(env);
  servers.push(second);
  expect(second.token).toBeUndefined();
  const b = chatApi(second.url, token);
  expect(await b.json('POST', `/api/chats/${chatId}/turns`, { message: 'Me too.' })).toEqual({
    status: 409,
    body: { error: 'This chat is already running a turn; wait for it to end or cancel it.', code: 'busy' },
  });
  expect((await b.json('GET', `/api/chats/${chatId}/turns/current`)).body).toMatchObject({
    state: 'running',
    fencingToken: 1,
  });

  expect((await b.json('POST', `/api/chats/${chatId}/cancel`)).body).toEqual({ cancelled: true });
  const rest: unknown[] = [];
  for await (const event of onFirst) rest.push(event);
  expect(rest).toEqual([{ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' }]);

  replay.enqueue({ body: chatBody({ text: 'Done here.' }) });
  const next = await b.call('POST', `/api/chats/${chatId}/turns`, { message: 'Now you.' });
  expect(next.status).toBe(200);
  expect((await collectSseEvents(next)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  expect(await a.items(chatId)).toEqual([
    { type: 'user_text', text: 'Long job.' },
    { type: 'assistant_text', text: 'Working' },
    { type: 'user_text', text: 'Now you.' },
    { type: 'assistant_text', text: 'Done here.' },
  ]);
}, 60_000);
