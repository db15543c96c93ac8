/**
 * Migration 14 on a database made by migration 13's schema, on SQLite and PostgreSQL: each chat's last
 * activity is backfilled from its newest message (its creation when it has none), the order of
 * activity follows it with ties in a fixed order, nothing is pinned or archived, and the existing
 * titles and user and assistant text are searchable at once — tool calls and results are not.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { DatabaseChatRepository } from '../../../src/db/database-chat-repository.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { MIGRATIONS } from '../../../src/db/migrations/all-migrations.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const item = (value: unknown) => JSON.stringify(value);

describe.each(BACKENDS)('migration 14 (chat search and activity) on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test('backfills last activity and the search index from the existing chats and messages', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const { database } = handle;
    const { sql } = database;
    await migrate(
      database,
      MIGRATIONS.filter((migration) => migration.version < 14),
    );
    const confined = backend === 'sqlite' ? 1 : true;
    for (const id of ['u1', 'u2']) {
      await sql`INSERT INTO users (id, name, created_at) VALUES (${id}, ${id}, '2026-01-01T00:00:00.000Z')`;
    }
    const chats: [string, string, string, string][] = [
      ['c-quiet', 'u1', 'Quiet chat', '2026-01-05T00:00:00.000Z'],
      ['c-busy', 'u1', 'Busy chat', '2026-01-01T00:00:00.000Z'],
      ['c-tie-b', 'u1', 'Tie b', '2026-01-02T00:00:00.000Z'],
      ['c-tie-a', 'u1', 'Tie a', '2026-01-02T00:00:00.000Z'],
      ['c-other', 'u2', 'Other user', '2026-01-01T00:00:00.000Z'],
    ];
    for (const [id, user, title, at] of chats) {
      await sql`INSERT INTO chats (id, user_id, title, working_directory, confined, provider, model,
        system_prompt, created_at) VALUES (${id}, ${user}, ${title}, NULL, ${confined}, 'openai', 'm', NULL, ${at})`;
    }
    const messages: [string, string, number, string, string, string][] = [
      [
        'm1',
        'c-busy',
        1,
        'user',
        item({ type: 'user_text', text: 'Where is the marmalade?' }),
        '2026-01-06T00:00:00.000Z',
      ],
      [
        'm2',
        'c-busy',
        2,
        'assistant',
        item({ type: 'tool_call', callId: 'x', name: 'grep', arguments: '{"pattern":"pickles"}' }),
        '2026-01-07T00:00:00.000Z',
      ],
      [
        'm3',
        'c-busy',
        3,
        'tool',
        item({ type: 'tool_result', callId: 'x', name: 'grep', ok: true, output: '"pickles"' }),
        '2026-01-08T00:00:00.000Z',
      ],
      [
        'm4',
        'c-busy',
        4,
        'assistant',
        item({ type: 'assistant_text', text: 'In the pantry.' }),
        '2026-01-09T00:00:00.000Z',
      ],
      [
        'm5',
        'c-other',
        1,
        'user',
        item({ type: 'user_text', text: 'marmalade for me too' }),
        '2026-01-02T00:00:00.000Z',
      ],
    ];
    for (const [id, chat, seq, role, content, at] of messages) {
      await sql`INSERT INTO messages (id, chat_id, seq, role, content_json, created_at)
        VALUES (${id}, ${chat}, ${seq}, ${role}, ${content}, ${at})`;
    }

    // Migration 14 and every later one, as an upgrade from the schema before it applies them.
    expect((await migrate(database)).applied).toEqual(
      MIGRATIONS.filter((migration) => migration.version >= 14).map((migration) => migration.version),
    );
    expect(MIGRATIONS.find((migration) => migration.version === 14)?.name).toBe('chat-search-and-activity');
    const repository = new DatabaseChatRepository(database);
    const listed = await repository.listChats('u1');
    expect(listed.map((chat) => [chat.id, chat.lastActivityAt, chat.pinnedAt, chat.archivedAt])).toEqual([
      ['c-busy', '2026-01-09T00:00:00.000Z', null, null],
      ['c-quiet', '2026-01-05T00:00:00.000Z', null, null],
      ['c-tie-b', '2026-01-02T00:00:00.000Z', null, null],
      ['c-tie-a', '2026-01-02T00:00:00.000Z', null, null],
    ]);
    const find = async (user: string, terms: string[]) =>
      (await repository.searchChats(user, { terms, limit: 20, offset: 0 })).hits.map((hit) => [
        hit.chat.id,
        hit.matches,
        hit.titleMatched,
        hit.message?.id ?? null,
      ]);
    expect(await find('u1', ['marmalade'])).toEqual([['c-busy', 1, false, 'm1']]);
    expect(await find('u1', ['pantry'])).toEqual([['c-busy', 1, false, 'm4']]);
    expect(await find('u1', ['busy'])).toEqual([['c-busy', 1, true, null]]);
    expect(await find('u1', ['pickles'])).toEqual([]);
    expect(await find('u2', ['marmalade'])).toEqual([['c-other', 1, false, 'm5']]);

    // After the migration the triggers keep it: a new message moves a tied chat to the top.
    await repository.appendMessage(
      'c-tie-a',
      { type: 'user_text', text: 'tie breaker' },
      '2026-01-02T00:00:00.000Z',
    );
    expect((await repository.listChats('u1')).map((chat) => chat.id)).toEqual([
      'c-busy',
      'c-quiet',
      'c-tie-a',
      'c-tie-b',
    ]);
    expect(await find('u1', ['breaker'])).toEqual([['c-tie-a', 1, false, expect.any(String)]]);
  });
});
