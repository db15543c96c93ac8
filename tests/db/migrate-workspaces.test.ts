/**
 * Migration 6 on a database written by the code before it (migrations 1–5, rows as that code's
 * repositories wrote them): every chat becomes confined, a chat without a directory keeps NULL (the
 * owner's personal workspace), grants start empty and no one is allowed unrestricted chats.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { migrate } from '../../src/db/migrate.ts';
import { MIGRATIONS } from '../../src/db/migrations/all-migrations.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('migration 6 (workspaces) on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test('existing chats become confined and keep their directories; NULL means the personal workspace', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const { sql } = handle.database;
    expect(await migrate(handle.database, MIGRATIONS.slice(0, 5))).toEqual({ applied: [1, 2, 3, 4, 5] });
    const flag = (value: boolean) => (backend === 'sqlite' ? Number(value) : value);
    await sql`INSERT INTO users (id, name, token_hash, created_at) VALUES
      ('u-ana', 'ana', 'hash-ana', '2026-01-01T00:00:00.000Z'),
      ('u-bo', 'bo', 'hash-bo', '2026-01-01T00:00:00.000Z')`;
    const chats = [
      { id: 'c-unbound', user: 'u-ana', directory: null, restricted: false },
      { id: 'c-open', user: 'u-ana', directory: '/srv/projects/app', restricted: false },
      { id: 'c-closed', user: 'u-bo', directory: '/home/bo/notes', restricted: true },
    ];
    for (const chat of chats) {
      await sql`INSERT INTO chats
          (id, user_id, title, working_directory, restricted, provider, model, system_prompt, created_at)
        VALUES (${chat.id}, ${chat.user}, 'T', ${chat.directory}, ${flag(chat.restricted)}, 'openai', 'm', NULL,
          '2026-01-02T00:00:00.000Z')`;
    }

    expect(await migrate(handle.database, MIGRATIONS.slice(0, 6))).toEqual({ applied: [6] });
    const { sql: current } = handle.database;
    expect(await current`SELECT id FROM chats WHERE confined = ${flag(true)} ORDER BY id`).toHaveLength(3);
    // The repository reads today's schema: what migration 6 wrote must survive every later one.
    await migrate(handle.database);

    const repository = new DatabaseChatRepository(handle.database);
    const read = async (id: string) => {
      const chat = await repository.getChat(id);
      return [chat?.workingDirectory, chat?.confined];
    };
    expect(await read('c-unbound')).toEqual([null, true]);
    expect(await read('c-open')).toEqual(['/srv/projects/app', true]);
    expect(await read('c-closed')).toEqual(['/home/bo/notes', true]);
    const workspaces = new DatabaseWorkspaceRepository(handle.database);
    expect(await workspaces.listGrants()).toEqual([]);
    expect(await workspaces.isUnrestrictedAllowed('u-ana')).toBe(false);
    // The old column is gone: nothing can read the old meaning by mistake.
    await expect(sql`SELECT restricted FROM chats`).rejects.toThrow();
  });

  test('grants are unique per user and path, keep the read-only flag, and go with their user', async () => {
    handle = await createTestDatabase(backend);
    const { sql } = handle.database;
    await sql`INSERT INTO users (id, name, token_hash, created_at)
      VALUES ('u-ana', 'ana', 'h', '2026-01-01T00:00:00.000Z')`;
    const workspaces = new DatabaseWorkspaceRepository(handle.database);
    const grant = { userId: 'u-ana', path: '/srv/b', readOnly: false, createdAt: '2026-01-03T00:00:00.000Z' };
    expect(await workspaces.putGrant(grant)).toEqual({ created: true });
    expect(await workspaces.putGrant({ ...grant, readOnly: true })).toEqual({ created: false });
    expect(await workspaces.putGrant({ ...grant, path: '/srv/a' })).toEqual({ created: true });
    expect(await workspaces.listGrants('u-ana')).toEqual([
      { ...grant, path: '/srv/a' },
      { ...grant, readOnly: true },
    ]);
    expect(await workspaces.setUnrestrictedAllowed('u-ana', true)).toBe(true);
    expect(await workspaces.isUnrestrictedAllowed('u-ana')).toBe(true);
    expect(await workspaces.setUnrestrictedAllowed('u-nobody', true)).toBe(false);
    expect(await workspaces.deleteGrant('u-ana', '/srv/a')).toBe(true);
    expect(await workspaces.deleteGrant('u-ana', '/srv/a')).toBe(false);
    await sql`DELETE FROM users WHERE id = 'u-ana'`;
    expect(await workspaces.listGrants()).toEqual([]);
  });
});
