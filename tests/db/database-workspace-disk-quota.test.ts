/**
 * Each user's own disk quota in the database (migration 13, `users.disk_quota_bytes`) on SQLite and
 * PostgreSQL: users that existed before it have none (the default applies), a value round-trips
 * exactly up to the largest quota (16 TiB, past 32 bits), clearing it brings the default back, and an
 * unknown user is reported, not created.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { migrate } from '../../src/db/migrate.ts';
import { MIGRATIONS } from '../../src/db/migrations/all-migrations.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('users.disk_quota_bytes on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test('a user from before migration 13 has no quota of their own', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    expect(await migrate(handle.database, MIGRATIONS.slice(0, 12))).toEqual({
      applied: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    });
    await handle.database.sql`INSERT INTO users (id, name, token_hash, created_at)
      VALUES ('u-old', 'old', 'hash-old', '2026-01-01T00:00:00.000Z')`;
    expect(await migrate(handle.database, MIGRATIONS.slice(0, 13))).toEqual({ applied: [13] });
    expect(await new DatabaseWorkspaceRepository(handle.database).diskQuota('u-old')).toBeUndefined();
  });

  test('a quota round-trips exactly, is cleared again, and an unknown user is reported', async () => {
    handle = await createTestDatabase(backend);
    const { user } = await new DatabaseUserRepository(handle.database).create('alice');
    const repository = new DatabaseWorkspaceRepository(handle.database);
    expect(await repository.diskQuota(user.id)).toBeUndefined();
    expect(await repository.setDiskQuota(user.id, 16 * 1024 ** 4)).toBe(true);
    expect(await repository.diskQuota(user.id)).toBe(17_592_186_044_416);
    expect(await repository.setDiskQuota(user.id, 5 * 1024 ** 3)).toBe(true);
    expect(await repository.diskQuota(user.id)).toBe(5_368_709_120);
    expect(await repository.setDiskQuota(user.id, undefined)).toBe(true);
    expect(await repository.diskQuota(user.id)).toBeUndefined();
    expect(await repository.setDiskQuota('no-such-user', 8 * 1024 ** 2)).toBe(false);
    expect(await repository.diskQuota('no-such-user')).toBeUndefined();
  });
});
