/**
 * Turn leases under faults, with real `mango serve` processes sharing one PostgreSQL database (lease
 * shortened to 1.5 s through `MANGO_TURN_LEASE_MS`):
 * - an instance paused (`SIGSTOP`) past its lease while another instance runs a newer turn: after
 *   `SIGCONT` it writes nothing more into the chat and its stream ends with `done{error}` saying why,
 *   within one renewal interval;
 * - an instance killed (`SIGKILL`) mid-turn: its holder is provably dead, so the chat is usable at once;
 * - a client re-attaching on another instance replays the turn and follows it live to its end.
 * The figures (seconds until the chat is usable after each fault) are printed for the report.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatApi } from '../helpers/chat-api-client.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { collectSseEvents, readSseEvents } from '../helpers/sse-client.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const LEASE_MS = 1_500;
let replay: ReplayServer;
let root: string;
let postgres: { url: string; drop: () => Promise<void> };
const servers: ServerProcess[] = [];
let token: string;

async function startInstance(): Promise<ServerProcess> {
  const server = await startServerProcess({
    MANGO_DATA_DIR: join(root, 'data'), // shared, as instances of one database must
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    DATABASE_URL: postgres.url,
    MANGO_TURN_LEASE_MS: String(LEASE_MS),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  });
  servers.push(server);
  return server;
}

/** The role chunk and one text chunk, then the model stalls until the request is aborted. */
function stallingAfter(text: string) {
  const [roleChunk, textChunk] = chatBody({ text }).split(/(?<=\n\n)/);
  return { chunks: [roleChunk!, textChunk!], ending: 'hang' as const };
}

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-lease-faults-')));
  postgres = await createPostgresDatabase();
  const first = await startInstance();
  token = first.token!;
  await startInstance();
}, 30_000);

afterAll(async () => {
  for (const server of servers) {
    server.child.kill('SIGCONT');
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await replay.close();
  await postgres.drop();
  await rm(root, { recursive: true, force: true });
});

describe('two instances on one PostgreSQL', () => {
  test('a client re-attaches on the other instance: replay after its last id, then live to done', async () => {
    const [a, b] = [chatApi(servers[0]!.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue(stallingAfter('Partial answer'));
    const turn = await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' });
    const onA = readSseEvents(turn);
    expect((await onA.next()).value).toEqual({ type: 'text_delta', delta: 'Partial answer' });

    const follow = await b.call('GET', `/api/chats/${chatId}/turns/current/events?after=0`);
    expect(follow.status).toBe(200);
    const onB = readSseEvents(follow);
    expect((await onB.next()).value).toEqual({ type: 'text_delta', delta: 'Partial answer' });
    expect((await b.json('POST', `/api/chats/${chatId}/cancel`)).body).toEqual({ cancelled: true });
    const restB: unknown[] = [];
    for await (const event of onB) restB.push(event);
    const restA: unknown[] = [];
    for await (const event of onA) restA.push(event);
    const cancelled = { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' };
    expect(restB).toEqual([cancelled]);
    expect(restA).toEqual([cancelled]);
    expect(await a.items(chatId)).toEqual([
      { type: 'user_text', text: 'Go.' },
      { type: 'assistant_text', text: 'Partial answer' },
    ]);
  }, 30_000);

  test('SIGSTOP past the lease: the other instance takes the chat; after SIGCONT the old turn writes nothing and ends with done{error}', async () => {
    const paused = servers[0]!;
    const [a, b] = [chatApi(paused.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue(stallingAfter('Old turn'));
    const turn = await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'First.' });
    const onA = readSseEvents(turn);
    expect((await onA.next()).value).toEqual({ type: 'text_delta', delta: 'Old turn' });

    paused.child.kill('SIGSTOP');
    const stoppedAt = performance.now();
    replay.enqueue({ body: chatBody({ text: 'New turn.' }) });
    let second: Response | undefined;
    expect(
      await waitUntil(async () => {
        const response = await b.call('POST', `/api/chats/${chatId}/turns`, { message: 'Second.' });
        if (response.status === 200) second = response;
        else await response.body?.cancel();
        return response.status === 200;
      }, 10_000),
    ).toBe(true);
    const usableAfter = (performance.now() - stoppedAt) / 1000;
    expect((await collectSseEvents(second!)).at(-1)).toEqual({ type: 'done', reason: 'completed' });

    paused.child.kill('SIGCONT');
    const resumedAt = performance.now();
    const rest: Record<string, unknown>[] = [];
    for await (const event of onA) rest.push(event);
    const endedAfterResume = performance.now() - resumedAt;
    expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    expect(String(rest.at(-1)!.message)).toContain('lost the turn lease');
    // One renewal interval (a third of the lease) plus the time to stop the provider request.
    expect(endedAfterResume).toBeLessThan(LEASE_MS / 3 + 1_000);
    // Nothing of the old turn after its user text: no "interrupted" text, nothing after the new turn.
    expect(await b.items(chatId)).toEqual([
      { type: 'user_text', text: 'First.' },
      { type: 'user_text', text: 'Second.' },
      { type: 'assistant_text', text: 'New turn.' },
    ]);
    const record = await b.json('GET', `/api/chats/${chatId}/turns/current`);
    expect(record.body).toMatchObject({ fencingToken: 2, state: 'completed' });
    console.log(
      `[figures] SIGSTOP: chat usable on the other instance ${usableAfter.toFixed(2)} s after the pause (lease ${LEASE_MS / 1000} s); paused turn ended ${(endedAfterResume / 1000).toFixed(2)} s after SIGCONT`,
    );
  }, 30_000);

  test('SIGKILL mid-turn: the holder is provably dead, so the chat is usable at once on the other instance', async () => {
    const killed = await startInstance();
    const [a, b] = [chatApi(killed.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue(stallingAfter('Doomed'));
    const turn = await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Crash.' });
    const onA = readSseEvents(turn);
    expect((await onA.next()).value).toEqual({ type: 'text_delta', delta: 'Doomed' });
    killed.child.kill('SIGKILL');
    await killed.exited;
    const killedAt = performance.now();
    // A cancel does not pretend: nothing was running any more.
    expect((await b.json('POST', `/api/chats/${chatId}/cancel`)).body).toEqual({
      cancelled: false,
      reason:
        'The instance that ran the turn is gone (it stopped renewing its lease); nothing was running, and the chat is free again.',
    });
    // Someone following the dead turn learns it is lost instead of waiting forever.
    const follow = await collectSseEvents(
      await b.call('GET', `/api/chats/${chatId}/turns/current/events?after=1`),
    );
    expect(follow).toEqual([
      {
        type: 'done',
        reason: 'error',
        message:
          'The instance running this turn stopped (it crashed, was paused, or lost the database) before the turn ended; what it completed is kept in the chat.',
      },
    ]);
    replay.enqueue({ body: chatBody({ text: 'Back.' }) });
    const next = await b.call('POST', `/api/chats/${chatId}/turns`, { message: 'Again.' });
    const usableAfter = (performance.now() - killedAt) / 1000;
    expect(next.status).toBe(200);
    expect((await collectSseEvents(next)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(usableAfter).toBeLessThan(LEASE_MS / 1000);
    expect(await b.items(chatId)).toEqual([
      { type: 'user_text', text: 'Crash.' },
      { type: 'user_text', text: 'Again.' },
      { type: 'assistant_text', text: 'Back.' },
    ]);
    console.log(`[figures] SIGKILL: chat usable ${usableAfter.toFixed(2)} s after the kill`);
  }, 30_000);
});
