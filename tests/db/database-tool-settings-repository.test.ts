import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseToolSettingsRepository } from '../../src/db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('DatabaseToolSettingsRepository on %s', (backend) => {
  let handle: TestDatabase;
  let repository: DatabaseToolSettingsRepository;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    const users = new DatabaseUserRepository(handle.database);
    alice = (await users.create('alice')).user.id;
    bob = (await users.create('bob')).user.id;
    repository = new DatabaseToolSettingsRepository(handle.database);
  }, 30_000);
  afterAll(() => handle.dispose());

  test('put then get/getAll round-trips each shape of row, per user', async () => {
    await repository.put(alice, 'grep', {
      enabled: false,
      parameters: { maxResults: 10, names: ['ü', '日本'] },
    });
    await repository.put(alice, 'glob', { parameters: {} });
    await repository.put(alice, 'bash', { enabled: true });
    await repository.put(alice, 'read_file', {});
    expect(await repository.get(alice, 'grep')).toEqual({
      enabled: false,
      parameters: { maxResults: 10, names: ['ü', '日本'] },
    });
    expect(await repository.getAll(alice)).toEqual({
      grep: { enabled: false, parameters: { maxResults: 10, names: ['ü', '日本'] } },
      glob: { parameters: {} },
      bash: { enabled: true },
      read_file: {},
    });
    expect(await repository.getAll(bob)).toEqual({});
    expect(await repository.get(bob, 'grep')).toBeUndefined();
  });

  test('put replaces the row', async () => {
    await repository.put(alice, 'grep', { parameters: { maxResults: 3 } });
    expect(await repository.get(alice, 'grep')).toEqual({ parameters: { maxResults: 3 } });
  });

  test('corrupted stored values come back raw, for the policy to reject', async () => {
    await handle.database
      .sql`INSERT INTO user_tool_settings (user_id, tool_name, enabled, parameters_json, updated_at)
      VALUES (${bob}, 'broken', ${null}, ${'{not json'}, ${'2026-01-01T00:00:00.000Z'})`;
    expect(await repository.get(bob, 'broken')).toEqual({ parameters: '{not json' });
  });

  test('update reads, changes and writes atomically; a throwing change stores nothing', async () => {
    const seen: unknown[] = [];
    const stored = await repository.update(bob, 'glob', (saved) => {
      seen.push(saved);
      return { enabled: false };
    });
    expect(stored).toEqual({ enabled: false });
    await expect(
      repository.update(bob, 'glob', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await repository.get(bob, 'glob')).toEqual({ enabled: false });
    expect(seen).toEqual([undefined]);
  });

  test('concurrent updates of one row apply one after another (no lost update)', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        repository.update(alice, 'counter', (saved) => {
          const parameters = (saved as { parameters?: Record<string, number> } | undefined)?.parameters ?? {};
          return { parameters: { ...parameters, [`k${index}`]: index } };
        }),
      ),
    );
    const row = (await repository.get(alice, 'counter')) as { parameters: Record<string, number> };
    expect(Object.keys(row.parameters)).toHaveLength(20);
  });
});
