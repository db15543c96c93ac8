import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseUserRepository, UserNameTakenError } from '../../src/db/database-user-repository.ts';
import { hashApiToken, readBearerToken } from '../../src/users/api-token.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('DatabaseUserRepository on %s', (backend) => {
  let handle: TestDatabase;
  let users: DatabaseUserRepository;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    users = new DatabaseUserRepository(handle.database, () => Date.UTC(2026, 10, 30, 6, 0, 0));
  }, 30_000);
  afterAll(() => handle.dispose());

  test('create returns a ≥128-bit token that authenticates; only its sha256 is stored', async () => {
    const { user, token } = await users.create('alice');
    expect(user).toEqual({ id: expect.any(String), name: 'alice', createdAt: '2026-11-30T06:00:00.000Z' });
    expect(token).toMatch(/^mango_[A-Za-z0-9_-]{43}$/); // 32 random bytes = 256 bits
    expect(await users.findByToken(token)).toEqual(user);
    const rows = await handle.database.sql`SELECT token_hash FROM users WHERE name = 'alice'`;
    expect(rows[0].token_hash).toBe(hashApiToken(token));
    expect(JSON.stringify(await handle.database.sql`SELECT * FROM users`)).not.toContain(token);
  });

  test('tokens are unique per user and a wrong or empty token finds nobody', async () => {
    const first = await users.create('bob');
    const second = await users.create('carol');
    expect(first.token).not.toBe(second.token);
    expect((await users.findByToken(second.token))?.name).toBe('carol');
    for (const bad of ['', 'mango_', `${first.token}x`, first.token.slice(0, -1), 'x'.repeat(10_000)]) {
      expect(await users.findByToken(bad)).toBeUndefined();
    }
  });

  test('a taken name is refused', async () => {
    await users.create('dave');
    await expect(users.create('dave')).rejects.toBeInstanceOf(UserNameTakenError);
  });

  test('invalid names are refused', async () => {
    for (const name of ['', 'with space', 'x'.repeat(65), 'semi;colon']) {
      await expect(users.create(name)).rejects.toThrow('user name');
    }
  });

  test('revoke stops the token from working and keeps the user listed as revoked', async () => {
    const { token } = await users.create('erin');
    expect(await users.revoke('erin')).toBe(true);
    expect(await users.findByToken(token)).toBeUndefined();
    expect(await users.revoke('nobody')).toBe(false);
    const listing = await users.listWithStatus();
    expect(listing.find((user) => user.name === 'erin')?.revoked).toBe(true);
    expect(listing.find((user) => user.name === 'alice')?.revoked).toBe(false);
  });

  test('findByName, list and count', async () => {
    expect((await users.findByName('alice'))?.name).toBe('alice');
    expect(await users.findByName('zed')).toBeUndefined();
    expect(await users.count()).toBe(5);
    expect((await users.list()).map((user) => user.name).sort()).toEqual([
      'alice',
      'bob',
      'carol',
      'dave',
      'erin',
    ]);
  });
});

describe('readBearerToken', () => {
  test.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['Bearer  abc ', 'abc'],
    ['Basic abc', undefined],
    ['Bearer', undefined],
    ['Bearer a b', undefined],
    ['', undefined],
    [null, undefined],
  ])('%p → %p', (header, expected) => {
    expect(readBearerToken(header)).toBe(expected);
  });
});
