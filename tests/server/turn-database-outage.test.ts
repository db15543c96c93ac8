/**
 * A database outage during a turn, on a real `mango serve` process whose PostgreSQL connection runs
 * through a loopback proxy the test cuts (the shared PostgreSQL server itself is never touched).
 * Lease 4 s (`MANGO_TURN_LEASE_MS`).
 * - A 1 s outage while a tool runs costs nothing: the failed writes are retried while the lease holds,
 *   the turn completes, and every item is stored exactly once.
 * - An outage that outlasts the lease (the database comes back once the turn has ended) stops the turn
 *   with `done{error}` saying why; the write it was making and its end are recorded (retried) once the
 *   database is back, so the chat is usable again at once, never left busy, and nothing is lost or
 *   stored twice.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatApi } from '../helpers/chat-api-client.ts';
import { type PausableTcpProxy, startPausableTcpProxy } from '../helpers/pausable-tcp-proxy.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { collectSseEvents, readSseEvents } from '../helpers/sse-client.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const LEASE_MS = 4_000;
let replay: ReplayServer;
let root: string;
let postgres: { url: string; drop: () => Promise<void> };
let proxy: PausableTcpProxy;
let server: ServerProcess;

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-db-outage-')));
  // The sandbox uid passes through it to the user's workspace, where the calls run.
  await chmod(root, 0o711);
  postgres = await createPostgresDatabase();
  const upstream = new URL(postgres.url);
  proxy = await startPausableTcpProxy(Number(upstream.port || 5432));
  upstream.port = String(proxy.port);
  server = await startServerProcess({
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    DATABASE_URL: upstream.toString(),
    MANGO_TURN_LEASE_MS: String(LEASE_MS),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  });
}, 30_000);

afterAll(async () => {
  server.child.kill('SIGKILL');
  await server.exited;
  await proxy.close();
  await replay.close();
  await postgres.drop();
  await rm(root, { recursive: true, force: true });
});

/** A bash call that leaves a file `running-<id>` in the chat's working directory, then sleeps. */
const sleepCall = (id: string, seconds: number) =>
  chatBody({
    calls: [
      {
        id,
        name: 'bash',
        fragments: [JSON.stringify({ command: `touch running-${id} && sleep ${seconds}` })],
      },
    ],
  });

/**
 * Resolves once the call `id` runs: its file exists in some workspace. Cutting the database then makes
 * the outage fall while the tool runs, after the checks before the call, however loaded the machine.
 */
async function whenRunning(id: string): Promise<void> {
  const workspaces = join(root, 'workspaces');
  const running = async () =>
    (await readdir(workspaces).catch(() => [] as string[])).some((user) =>
      existsSync(join(workspaces, user, `running-${id}`)),
    );
  if (!(await waitUntil(running, 30_000))) throw new Error(`the call ${id} never ran`);
}

describe('database outage during a turn', () => {
  test('a 1 s outage while a tool runs: the turn completes, every item stored exactly once', async () => {
    const api = chatApi(server.url, server.token!);
    // The shell's lifecycle is the subject here; approvals are tested in chat-approvals.test.ts.
    expect(
      (
        await api.json('PUT', '/api/settings/tools/bash', {
          enabled: true,
          parameters: { approval: 'never' },
        })
      ).status,
    ).toBe(200);
    const chatId = await api.createChat();
    replay.enqueue({ body: sleepCall('b1', 1.5) }, { body: chatBody({ text: 'Slept.' }) });
    const events: Record<string, unknown>[] = [];
    const restored = whenRunning('b1').then(async () => {
      proxy.cut();
      await Bun.sleep(1_000); // fixture: a database that is away for 1 s, well within the lease
      proxy.restore();
    });
    for await (const event of readSseEvents(
      await api.call('POST', `/api/chats/${chatId}/turns`, { message: 'Nap.' }),
    )) {
      events.push(event);
    }
    await restored;
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      callId: 'b1',
      ok: true,
      result: { exitCode: 0, stderr: '' },
    });
    const items = (await api.items(chatId)) as { type: string }[];
    expect(items.map((item) => item.type)).toEqual([
      'user_text',
      'tool_call',
      'tool_result',
      'assistant_text',
    ]);
  }, 60_000);

  test('an outage longer than the lease: done{error} saying why, then the chat is usable as soon as the database is back', async () => {
    const api = chatApi(server.url, server.token!);
    const chatId = await api.createChat();
    replay.enqueue({ body: sleepCall('b2', 1) });
    const events: Record<string, unknown>[] = [];
    let cutAt = 0;
    let restoredAt = 0;
    const restored = whenRunning('b2').then(async () => {
      proxy.cut();
      cutAt = performance.now();
      // The database stays away until the turn has given up on its expired lease, however long that
      // takes on this machine; the bound only ends a turn that never stops.
      await waitUntil(() => events.some((event) => event.type === 'done'), LEASE_MS + 30_000);
      proxy.restore();
      restoredAt = performance.now();
    });
    for await (const event of readSseEvents(
      await api.call('POST', `/api/chats/${chatId}/turns`, { message: 'Nap.' }),
    )) {
      events.push(event);
    }
    const endedAt = performance.now();
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    expect(String(events.at(-1)!.message)).toStartWith(
      'The database could not be reached before the turn lease expired',
    );
    // The turn stopped within its lease (plus a retry), not when the outage ended.
    expect(endedAt - cutAt).toBeLessThan(LEASE_MS + 1_000);
    await restored;

    replay.enqueue({ body: chatBody({ text: 'Awake.' }) });
    let next: Response | undefined;
    expect(
      await waitUntil(async () => {
        const response = await api.call('POST', `/api/chats/${chatId}/turns`, { message: 'Again.' });
        if (response.status === 200) next = response;
        else await response.body?.cancel();
        return response.status === 200;
      }, LEASE_MS + 5_000),
    ).toBe(true);
    const usableAfterRestore = (performance.now() - restoredAt) / 1000;
    expect((await collectSseEvents(next!)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    // The tool result was being written when the turn gave up: it is finished once the database is
    // back (nobody took the chat over meanwhile), so the tool's work is not lost.
    const items = (await api.items(chatId)) as { type: string }[];
    expect(items.map((item) => item.type)).toEqual([
      'user_text',
      'tool_call',
      'tool_result',
      'user_text',
      'assistant_text',
    ]);
    console.log(
      `[figures] database outage of ${((restoredAt - cutAt) / 1000).toFixed(1)} s (lease ${LEASE_MS / 1000} s): turn stopped ${((endedAt - cutAt) / 1000).toFixed(2)} s after the cut; chat usable ${usableAfterRestore.toFixed(2)} s after the database came back`,
    );
  }, 60_000);
});
