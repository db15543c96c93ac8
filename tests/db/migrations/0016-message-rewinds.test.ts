/**
 * Migration 16 (message rewinds) on a database made by the schema before it, on SQLite and PostgreSQL:
 * the chat, messages and turn it held stay in the chat, and a rerun's replacement then works on them,
 * fenced like every write of a turn.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { DatabaseChatRepository } from '../../../src/db/database-chat-repository.ts';
import { migrate } from '../../../src/db/migrate.ts';
import { MIGRATIONS } from '../../../src/db/migrations/all-migrations.ts';
import { TurnFencedError } from '../../../src/turns/turn-fence.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const BEFORE = MIGRATIONS.filter((migration) => migration.version < 16);
const AT = '2026-12-01T10:00:00.000Z';

describe.each(BACKENDS)('migration 16 (message rewinds) on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test("keeps an older database's messages and turns in the chat, then replaces under the turn's fence", async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const { database } = handle;
    await migrate(database, BEFORE);
    const { sql } = database;
    await sql`INSERT INTO users (id, name, created_at) VALUES ('u1', 'u1', ${AT})`;
    // The schema before this migration has the last-activity column (chat search, migration 14).
    await sql`INSERT INTO chats (id, user_id, title, provider, model, created_at, last_activity_at, confined)
      VALUES ('c1', 'u1', 't', 'openai', 'm', ${AT}, ${AT}, ${backend === 'sqlite' ? 1 : true})`;
    for (const [seq, role, item] of [
      [1, 'user', { type: 'user_text', text: 'Q' }],
      [2, 'assistant', { type: 'assistant_text', text: 'A' }],
    ] as const) {
      await sql`INSERT INTO messages (id, chat_id, seq, role, content_json, created_at)
        VALUES (${`m${seq}`}, 'c1', ${seq}, ${role}, ${JSON.stringify(item)}, ${AT})`;
    }
    await sql`INSERT INTO chat_turns (id, chat_id, fencing_token, holder, state, started_at, ended_at,
        message_seq_at_start)
      VALUES ('t1', 'c1', 1, 'h', 'completed', ${AT}, ${AT}, 0)`;

    expect(await migrate(database)).toEqual({ applied: [16] });
    const repository = new DatabaseChatRepository(database);
    expect((await repository.listMessages('c1')).map((message) => [message.seq, message.item])).toEqual([
      [1, { type: 'user_text', text: 'Q' }],
      [2, { type: 'assistant_text', text: 'A' }],
    ]);
    expect((await repository.turns.listTurns('c1')).map((turn) => turn.id)).toEqual(['t1']);

    const now = '2026-12-01T11:00:00.000Z';
    const claimed = await repository.turns.claimTurn({
      chatId: 'c1',
      turnId: 't2',
      holder: 'h',
      now,
      leaseExpiresAt: '2026-12-01T11:00:30.000Z',
    });
    expect(claimed?.messageSeqAtStart).toBe(2);
    const fence = { turnId: 't2', fencingToken: claimed!.fencingToken, now };
    // A stale fence (another token) replaces nothing.
    await expect(
      repository.turns.appendTurnMessage(
        { ...fence, fencingToken: 99 },
        'c1',
        'm3',
        { type: 'user_text', text: 'Q' },
        1,
      ),
    ).rejects.toBeInstanceOf(TurnFencedError);
    expect((await repository.listMessages('c1')).map((message) => message.seq)).toEqual([1, 2]);

    const item = { type: 'user_text', text: 'Q again' } as const;
    const stored = await repository.turns.appendTurnMessage(fence, 'c1', 'm3', item, 1);
    expect(stored).toMatchObject({ id: 'm3', seq: 3, item });
    // A retry after the commit (its reply lost) changes nothing more.
    expect(await repository.turns.appendTurnMessage(fence, 'c1', 'm3', item, 1)).toEqual(stored);
    expect((await repository.listMessages('c1')).map((message) => message.id)).toEqual(['m3']);
    expect(
      (await repository.listMessageHistory('c1')).map((message) => [message.id, message.discardedBy ?? null]),
    ).toEqual([
      ['m1', 't2'],
      ['m2', 't2'],
      ['m3', null],
    ]);
    expect((await repository.turns.listTurns('c1')).map((turn) => turn.id)).toEqual(['t2']);
  });
});
