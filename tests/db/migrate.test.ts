import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { migrate } from '../../src/db/migrate.ts';
import { MIGRATIONS, type Migration } from '../../src/db/migrations/all-migrations.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

/** Every shipped version, and a probe migration numbered right after the highest. */
const VERSIONS = MIGRATIONS.map((migration) => migration.version);
const probe: Migration = {
  version: Math.max(...MIGRATIONS.map((migration) => migration.version)) + 1,
  name: 'probe',
  sqlite: ['CREATE TABLE probe (id INTEGER PRIMARY KEY)'],
  postgres: ['CREATE TABLE probe (id INTEGER PRIMARY KEY)'],
};

describe.each(BACKENDS)('migrate on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test('applies every migration once, records it, and is a no-op afterwards', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    expect(await migrate(handle.database, MIGRATIONS, () => Date.UTC(2026, 0, 1))).toEqual({
      applied: VERSIONS,
    });
    expect(await migrate(handle.database)).toEqual({ applied: [] });
    const rows = await handle.database.sql`SELECT version, name, applied_at FROM schema_migrations`;
    expect(
      rows
        .map((row: Record<string, unknown>) => ({ ...row, version: Number(row.version) }))
        .sort((left: { version: number }, right: { version: number }) => left.version - right.version),
    ).toEqual(
      MIGRATIONS.map(({ version, name }) => ({ version, name, applied_at: '2026-01-01T00:00:00.000Z' })),
    );
    expect(MIGRATIONS.slice(0, 3).map((migration) => migration.name)).toEqual(['initial', 'images', 'chats']);
    for (const table of ['users', 'user_tool_settings', 'file_observations', 'images', 'chats', 'messages']) {
      expect(await handle.database.sql.unsafe(`SELECT COUNT(*) AS count FROM ${table}`)).toHaveLength(1);
    }
  });

  test('a new numbered migration is applied on the next start, the old ones are not re-run', async () => {
    handle = await createTestDatabase(backend);
    expect(await migrate(handle.database, [...MIGRATIONS, probe])).toEqual({ applied: [probe.version] });
    expect(await migrate(handle.database, [...MIGRATIONS, probe])).toEqual({ applied: [] });
  });

  test('a failing migration leaves nothing behind and is retried next time', async () => {
    handle = await createTestDatabase(backend);
    const broken: Migration = {
      ...probe,
      sqlite: [...probe.sqlite, 'NOT SQL'],
      postgres: [...probe.postgres, 'NOT SQL'],
    };
    await expect(migrate(handle.database, [...MIGRATIONS, broken])).rejects.toThrow();
    expect(await migrate(handle.database, [...MIGRATIONS, probe])).toEqual({ applied: [probe.version] });
  });

  test('refuses a list that is out of order', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    await expect(migrate(handle.database, [probe])).rejects.toThrow('expected 1');
  });

  test('two server processes migrating one database at once: each migration applied exactly once', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const env = {
      ...process.env,
      MANGO_DATA_DIR: handle.config.dataDirectory,
      DATABASE_URL: handle.config.databaseUrl ?? '',
    };
    const instances = [1, 2].map(() =>
      Bun.spawn([process.execPath, join(import.meta.dir, '__fixtures__', 'migrate-once.ts')], {
        env,
        stdout: 'pipe',
        stderr: 'inherit',
      }),
    );
    const outputs = await Promise.all(instances.map((instance) => new Response(instance.stdout).text()));
    expect(await Promise.all(instances.map((instance) => instance.exited))).toEqual([0, 0]);
    const results = outputs.map((output) => JSON.parse(output) as { applied: number[] });
    if (backend === 'postgres') {
      // The first to take the advisory lock holds it for its whole run: it applies everything.
      expect(
        results.map((result) => result.applied).sort((left, right) => left.length - right.length),
      ).toEqual([[], VERSIONS]);
    }
    // On SQLite each migration is its own transaction, so the two may split the list between them
    // (migrate-interleaving.test.ts makes each way happen): what must hold is that together they
    // applied every version exactly once, each in order.
    const applied = results.flatMap((result) => result.applied);
    expect([...applied].sort((left, right) => left - right)).toEqual(VERSIONS);
    for (const result of results) {
      expect(result.applied).toEqual([...result.applied].sort((left, right) => left - right));
    }
    const rows = await handle.database.sql`SELECT version FROM schema_migrations`;
    expect(rows).toHaveLength(VERSIONS.length);
  });
});
