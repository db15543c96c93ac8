import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Database } from '../../src/db/database.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { SandboxIdRangeFullError } from '../../src/sandbox/sandbox-id-repository.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const NOW = '2026-12-02T00:00:00.000Z';
const RANGE = { base: 3_000_000, count: 1000 };

for (const backend of BACKENDS) {
  describe(`sandbox ids on ${backend}`, () => {
    let handle: TestDatabase;
    const others: Database[] = [];
    beforeAll(async () => {
      handle = await createTestDatabase(backend);
    }, 30_000);
    afterAll(async () => {
      for (const other of others) await other.close();
      await handle.dispose();
    });

    test('the first owner gets base + 1, the next base + 2; asking again gives the same id', async () => {
      const ids = new DatabaseSandboxIdRepository(handle.database);
      expect(await ids.allocate('user', 'alice', RANGE, NOW)).toBe(3_000_001);
      expect(await ids.allocate('grant', '/srv/shared', RANGE, NOW)).toBe(3_000_002);
      expect(await ids.allocate('user', 'alice', RANGE, NOW)).toBe(3_000_001);
      expect(await ids.find('user', 'alice')).toBe(3_000_001);
      expect(await ids.find('user', '/srv/shared')).toBeUndefined();
      expect(await ids.find('grant', '/srv/shared')).toBe(3_000_002);
    });

    test('ids survive a restart, and a user row deleted frees no id', async () => {
      const { sql } = handle.database;
      await sql`INSERT INTO users (id, name, token_hash, created_at) VALUES ('gone', 'gone', 'h', ${NOW})`;
      const ids = new DatabaseSandboxIdRepository(handle.database);
      expect(await ids.allocate('user', 'gone', RANGE, NOW)).toBe(3_000_003);
      await sql`DELETE FROM users WHERE id = 'gone'`;
      const reopened = new DatabaseSandboxIdRepository(await handle.reopen());
      expect(await reopened.find('user', 'alice')).toBe(3_000_001);
      expect(await reopened.find('user', 'gone')).toBe(3_000_003);
      expect(await reopened.allocate('user', 'bob', RANGE, NOW)).toBe(3_000_004);
      expect((await reopened.list()).map((row) => [row.id, row.kind, row.owner])).toEqual([
        [3_000_001, 'user', 'alice'],
        [3_000_002, 'grant', '/srv/shared'],
        [3_000_003, 'user', 'gone'],
        [3_000_004, 'user', 'bob'],
      ]);
    });

    test('40 owners allocating at once over 4 connections get 40 distinct ids, each exactly once', async () => {
      const connections = [handle.database];
      for (let index = 0; index < 3; index += 1) {
        const other = await handle.open();
        others.push(other);
        connections.push(other);
      }
      const owners = Array.from({ length: 40 }, (_, index) => `racer-${index}`);
      // Each owner is asked for on two connections at once: the two answers must agree.
      const answers = await Promise.all(
        owners.flatMap((owner, index) =>
          [0, 1].map((offset) =>
            new DatabaseSandboxIdRepository(connections[(index + offset) % connections.length] as Database)
              .allocate('user', owner, RANGE, NOW)
              .then((id) => [owner, id] as const),
          ),
        ),
      );
      const byOwner = new Map<string, Set<number>>();
      for (const [owner, id] of answers) byOwner.set(owner, (byOwner.get(owner) ?? new Set()).add(id));
      expect([...byOwner.values()].every((ids) => ids.size === 1)).toBe(true);
      const given = [...byOwner.values()].map((ids) => [...ids][0] as number).sort((a, b) => a - b);
      expect(given).toEqual(Array.from({ length: 40 }, (_, index) => 3_000_005 + index));
      const rows = await new DatabaseSandboxIdRepository(handle.database).list();
      expect(rows.length).toBe(44);
    });

    test('a full range refuses a new owner with the variable to raise; owners with an id keep it', async () => {
      const ids = new DatabaseSandboxIdRepository(handle.database);
      const small = { base: 4_000_000, count: 3 };
      expect(await ids.allocate('user', 'first', small, NOW)).toBe(4_000_001);
      expect(await ids.allocate('user', 'second', small, NOW)).toBe(4_000_002);
      const refused = ids.allocate('user', 'third', small, NOW);
      await expect(refused).rejects.toBeInstanceOf(SandboxIdRangeFullError);
      await expect(ids.allocate('user', 'third', small, NOW)).rejects.toThrow(
        'Every id of the sandbox range 4000000–4000002 is taken, so this user has no uid to run commands as; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).',
      );
      expect(await ids.allocate('user', 'first', small, NOW)).toBe(4_000_001);
      expect(await ids.find('user', 'third')).toBeUndefined();
    });
  });
}
