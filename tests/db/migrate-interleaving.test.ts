/**
 * Two migrators on one database, each on its own connection, interleaved on purpose through
 * `migrate`'s hook before each version rather than left to the scheduler: each version is applied
 * exactly once and in order, whoever applies it.
 *
 * - A second migrator that arrives while the first sits between two versions: on SQLite (no lock is
 *   held between two migrations' transactions) it applies the rest, and the first then finds them
 *   applied; on PostgreSQL it waits on the run's advisory lock until the first has applied them all,
 *   then applies none.
 * - On SQLite the two may even take turns version by version, splitting the list between them.
 *
 * The migrators share one clock that ticks on every read, so the `applied_at` of the rows gives the
 * order in which the versions were applied across both.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { Database } from '../../src/db/database.ts';
import { type BeforeMigration, type MigrationResult, migrate } from '../../src/db/migrate.ts';
import { MIGRATIONS } from '../../src/db/migrations/all-migrations.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const VERSIONS = MIGRATIONS.map((migration) => migration.version);
const START = Date.UTC(2026, 0, 1);

/** A clock both migrators read: each read is one second after the one before. */
function tickingClock(): () => number {
  let ticks = 0;
  return () => START + 1000 * ticks++;
}

/** The rows in the order they were applied, and the tick each was applied at. */
async function appliedRows(database: Database): Promise<{ version: number; tick: number }[]> {
  const rows: { version: number | string; applied_at: string }[] =
    await database.sql`SELECT version, applied_at FROM schema_migrations ORDER BY applied_at, version`;
  return rows.map((row) => ({
    version: Number(row.version),
    tick: (Date.parse(row.applied_at) - START) / 1000,
  }));
}

/** Every version once, applied one after another in version order (ticks 0, 1, 2…). */
const inOrderOnce = VERSIONS.map((version, tick) => ({ version, tick }));

/** A hook that holds its migrator before `version` until released, and tells when it got there. */
function holdBefore(version: number) {
  const reached = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const hook: BeforeMigration = async (migration) => {
    if (migration.version !== version) return;
    reached.resolve();
    await released.promise;
  };
  return { hook, reached: reached.promise, release: () => released.resolve() };
}

/**
 * Two hooks that make their migrators take turns: the version at an even index of the list is
 * `first`'s to look at first, the one at an odd index `second`'s; the other looks at it only after the
 * one whose turn it is has moved past it (or finished), so whoever looks first applies it.
 */
function takingTurns() {
  const reached = { first: -1, second: -1 };
  let waiting: (() => void)[] = [];
  const moved = () => {
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const until = async (condition: () => boolean) => {
    while (!condition()) await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const hookOf =
    (name: 'first' | 'second'): BeforeMigration =>
    async (migration) => {
      const index = VERSIONS.indexOf(migration.version);
      reached[name] = index;
      moved();
      const other = name === 'first' ? 'second' : 'first';
      const turnOf = index % 2 === 0 ? 'first' : 'second';
      if (turnOf !== name) await until(() => reached[other] > index);
    };
  const run = (name: 'first' | 'second', database: Database, clock: () => number) =>
    migrate(database, MIGRATIONS, clock, hookOf(name)).finally(() => {
      reached[name] = Number.POSITIVE_INFINITY;
      moved();
    });
  return { run };
}

describe.each(BACKENDS)('two migrators interleaved on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test('a second migrator arriving while the first is between two versions: each applied once, in order', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const [first, second] = [await handle.open(), await handle.open()];
    const clock = tickingClock();
    // The first applies two versions and stops before the third.
    const held = holdBefore(VERSIONS[2]!);
    const firstRun = migrate(first, MIGRATIONS, clock, held.hook);
    await held.reached;

    let secondResult: MigrationResult | undefined;
    const secondRun = migrate(second, MIGRATIONS, clock).then((result) => {
      secondResult = result;
      return result;
    });
    try {
      if (backend === 'sqlite') {
        // Nothing is locked between two transactions: the second applies what is left.
        expect(await secondRun).toEqual({ applied: VERSIONS.slice(2) });
        held.release();
        expect(await firstRun).toEqual({ applied: VERSIONS.slice(0, 2) });
      } else {
        // The second's session waits for the advisory lock the first holds for its whole run.
        const waitingForLock = async () => {
          const rows: { waiting: number | string }[] = await handle!.database.sql`
            SELECT count(*) AS waiting FROM pg_locks
            WHERE locktype = 'advisory' AND NOT granted
              AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
          return Number(rows[0]!.waiting) === 1;
        };
        expect(await waitUntil(waitingForLock, 15_000)).toBe(true);
        expect(secondResult).toBeUndefined();
        held.release();
        expect(await firstRun).toEqual({ applied: VERSIONS });
        expect(await secondRun).toEqual({ applied: [] });
      }
    } finally {
      // A failed expectation must not leave the first migrator held (and its connection busy).
      held.release();
      await Promise.allSettled([firstRun, secondRun]);
    }
    expect(await appliedRows(handle.database)).toEqual(inOrderOnce);
  }, 30_000);
});

describe('two migrators taking turns on sqlite', () => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  // Not on PostgreSQL: there the first holds the lock for its whole run, so turns cannot happen.
  test('version by version, they split the list between them: each applied once, in order', async () => {
    handle = await createTestDatabase('sqlite', { migrate: false });
    const [first, second] = [await handle.open(), await handle.open()];
    const clock = tickingClock();
    const turns = takingTurns();
    const [firstResult, secondResult] = await Promise.all([
      turns.run('first', first, clock),
      turns.run('second', second, clock),
    ]);
    expect(firstResult).toEqual({ applied: VERSIONS.filter((_, index) => index % 2 === 0) });
    expect(secondResult).toEqual({ applied: VERSIONS.filter((_, index) => index % 2 === 1) });
    expect(await appliedRows(handle.database)).toEqual(inOrderOnce);
  });
});
