/**
 * Push wake-ups between instances. Figures, as measured on this machine:
 * - an approval answered through server B reaching the turn on server A (from sending the answer to
 *   A's stream showing `tool_approval_resolved`), p50 and p95 of `WAKE_BENCH_APPROVALS` (default 30),
 *   on PostgreSQL (LISTEN/NOTIFY) against SQLite (A polls the row every 400 ms, the default lease's);
 *   the goal is 50 ms at p95 on PostgreSQL;
 * - one wake-up from one `PostgresWakeUps` to another's listener, against a bare `sql.listen` and
 *   `sql.notify` between two connections, p50 and p95 of `WAKE_BENCH_NOTIFIES` (default 200).
 */
import { SQL } from 'bun';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { PostgresWakeUps } from '../src/db/postgres-wake-ups.ts';
import { startApprovalServers, waitForQuestion } from '../tests/helpers/approval-servers.ts';
import { chatBody } from '../tests/helpers/scripted-provider-streams.ts';
import { readSseEvents } from '../tests/helpers/sse-client.ts';
import { createPostgresDatabase } from '../tests/helpers/test-database.ts';
import { stopTestPostgres } from '../tests/helpers/test-postgres-server.ts';

const APPROVALS = Number(process.env.WAKE_BENCH_APPROVALS ?? 30);
const NOTIFIES = Number(process.env.WAKE_BENCH_NOTIFIES ?? 200);

function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

function describe(label: string, values: number[]): string {
  return `  ${label.padEnd(44)} p50 ${quantile(values, 0.5).toFixed(1)} ms, p95 ${quantile(values, 0.95).toFixed(1)} ms (${values.length} samples)`;
}

async function approvalLatencies(backend: 'sqlite' | 'postgres'): Promise<number[]> {
  const setup = await startApprovalServers(backend, 30_000);
  try {
    await setup.a.json('PUT', '/api/settings/tools/locked', { parameters: { approval: 'always' } });
    const latencies: number[] = [];
    for (let round = 0; round < APPROVALS; round++) {
      const chatId = await setup.a.createChat();
      const callId = `c${round}`;
      setup.replay.enqueue(
        { body: chatBody({ calls: [{ id: callId, name: 'locked', fragments: ['{"value":"v"}'] }] }) },
        { body: chatBody({ text: 'ok' }) },
      );
      const onA = readSseEvents(await setup.a.call('POST', `/api/chats/${chatId}/turns`, { message: 'go' }));
      await waitForQuestion(onA);
      const sentAt = performance.now();
      const answer = setup.b.json('POST', `/api/chats/${chatId}/approvals/${callId}`, {
        decision: 'approve',
      });
      const resolved = await onA.next();
      latencies.push(performance.now() - sentAt);
      if (
        (await answer).status !== 200 ||
        (resolved.value as { type?: string }).type !== 'tool_approval_resolved'
      )
        throw new Error(`round ${round}: the answer was not taken`);
      for await (const _ of onA) {
        // the rest of the turn
      }
    }
    return latencies;
  } finally {
    await setup.close();
  }
}

async function notifyLatencies(url: string): Promise<{ mango: number[]; bare: number[] }> {
  const first = await openDatabase({ databaseUrl: url, dataDirectory: '/nonexistent' });
  const second = await openDatabase({ databaseUrl: url, dataDirectory: '/nonexistent' });
  await migrate(first);
  const a = await PostgresWakeUps.start(first, { instanceId: 'a', fallbackPollMilliseconds: 600_000 });
  const b = await PostgresWakeUps.start(second, { instanceId: 'b', fallbackPollMilliseconds: 600_000 });
  const mango: number[] = [];
  for (let round = 0; round < NOTIFIES; round++) {
    const key = `k${round}`;
    const woken = new Promise<void>((resolve) => {
      const unsubscribe = a.subscribe('approval', key, () => {
        unsubscribe();
        resolve();
      });
    });
    const sentAt = performance.now();
    b.notify('approval', key);
    await woken;
    mango.push(performance.now() - sentAt);
  }
  await a.close();
  await b.close();
  await first.close();
  await second.close();

  const listener = new SQL(url, { max: 1 });
  const sender = new SQL(url, { max: 1 });
  let pending: ((payload: string) => void) | undefined;
  const subscription = await listener.listen('bench_bare', (payload) => pending?.(payload));
  const bare: number[] = [];
  for (let round = 0; round < NOTIFIES; round++) {
    const received = new Promise<string>((resolve) => {
      pending = resolve;
    });
    const sentAt = performance.now();
    await sender.notify('bench_bare', String(round));
    await received;
    bare.push(performance.now() - sentAt);
  }
  await subscription.unlisten();
  await listener.close();
  await sender.close();
  return { mango, bare };
}

try {
  console.log(
    'An approval answered through B reaching the turn on A (two mango serve processes, 30 s lease):',
  );
  const pushed = await approvalLatencies('postgres');
  console.log(describe('PostgreSQL, LISTEN/NOTIFY', pushed));
  const polled = await approvalLatencies('sqlite');
  console.log(describe('SQLite, polled every 400 ms', polled));
  console.log(`  goal: p95 within 50 ms on PostgreSQL: ${quantile(pushed, 0.95) <= 50 ? 'met' : 'not met'}`);
  const database = await createPostgresDatabase();
  try {
    const { mango, bare } = await notifyLatencies(database.url);
    console.log('One wake-up between two connections of one PostgreSQL database:');
    console.log(describe('PostgresWakeUps notify -> listener', mango));
    console.log(describe('bare sql.notify -> sql.listen', bare));
  } finally {
    await database.drop();
  }
} finally {
  await stopTestPostgres();
}
