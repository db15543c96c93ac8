/**
 * LISTEN/NOTIFY wake-ups between two instances of one PostgreSQL database: a notify on one wakes the
 * other's listener of that topic and key only, and its own listeners at once; the listener counts as
 * pushing once it listens; cut from the database (a proxy in between), it stops pushing and wakes its
 * listeners, and once the database is back it listens again, pushes, and carries wake-ups again.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { openDatabase } from '../../src/db/database.ts';
import { PostgresWakeUps } from '../../src/db/postgres-wake-ups.ts';
import { type PausableTcpProxy, startPausableTcpProxy } from '../helpers/pausable-tcp-proxy.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

describe('PostgreSQL wake-ups', () => {
  let handle: TestDatabase | undefined;
  let proxy: PausableTcpProxy | undefined;
  const sources: PostgresWakeUps[] = [];
  afterEach(async () => {
    for (const source of sources.splice(0)) await source.close();
    await proxy?.close();
    await handle?.dispose();
    proxy = undefined;
    handle = undefined;
  });

  async function start(instanceId: string, database = handle!.database): Promise<PostgresWakeUps> {
    const source = await PostgresWakeUps.start(database, {
      instanceId,
      fallbackPollMilliseconds: 600_000,
      heartbeatMilliseconds: 100,
    });
    sources.push(source);
    return source;
  }

  test('a notify on one instance wakes the listeners of that topic and key on the other', async () => {
    handle = await createTestDatabase('postgres');
    const a = await start('a');
    const b = await start('b', await handle.open());
    expect(a.pushing).toBe(true);
    expect(a.fallbackPollMilliseconds).toBe(600_000);
    const woken: string[] = [];
    b.subscribe('approval', 'q1', () => woken.push('b approval q1'));
    b.subscribe('approval', 'q2', () => woken.push('b approval q2'));
    b.subscribe('cancel', 'q1', () => woken.push('b cancel q1'));
    a.subscribe('approval', 'q1', () => woken.push('a approval q1'));
    a.notify('approval', 'q1');
    // Its own listener at once, before any round trip.
    expect(woken).toEqual(['a approval q1']);
    expect(await waitUntil(() => woken.length === 2, 10_000)).toBe(true);
    expect(woken).toEqual(['a approval q1', 'b approval q1']);
  });

  test('cut from the database it stops pushing; back, it listens again and carries wake-ups', async () => {
    handle = await createTestDatabase('postgres');
    const url = new URL(handle.config.databaseUrl!);
    proxy = await startPausableTcpProxy(Number(url.port));
    url.port = String(proxy.port);
    const throughProxy = await openDatabase({
      ...handle.config,
      databaseUrl: url.toString(),
      maxConnections: 2,
    });
    const a = await start('a', throughProxy);
    const b = await start('b', await handle.open());
    let wokenOnA = 0;
    a.subscribe('turn', 't1', () => wokenOnA++);
    proxy.cut();
    expect(await waitUntil(() => !a.pushing, 10_000)).toBe(true);
    // Losing the push path woke its listener once, so it reads instead of waiting for a push.
    expect(wokenOnA).toBe(1);
    proxy.restore();
    expect(await waitUntil(() => a.pushing && a.listens === 2, 20_000)).toBe(true);
    const before = wokenOnA;
    b.notify('turn', 't1');
    expect(await waitUntil(() => wokenOnA > before, 10_000)).toBe(true);
    await a.close();
    sources.splice(sources.indexOf(a), 1);
    await throughProxy.close();
  });
});
