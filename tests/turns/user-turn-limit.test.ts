/**
 * The turn store's user limit (`userTurnLimit` of a claim), on the in-memory store, SQLite and
 * PostgreSQL: the owner's running turns with unexpired leases count across chats, a claim past the
 * limit throws `UserTurnLimitError` and writes nothing, a busy chat is still reported busy, ended turns,
 * lapsed leases and other users' turns do not count, and claims racing over two connections to one
 * database never let more than the limit through.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { ChatRepository } from '../../src/chat/chat-repository.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import type { TurnRecord } from '../../src/turns/turn-repository.ts';
import { UserTurnLimitError } from '../../src/turns/user-turn-limit-error.ts';
import { testChat } from '../helpers/test-chat.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);
const at = (offset: number) => new Date(T0 + offset).toISOString();
const LEASE = 1_000;

describe.each(['memory', ...BACKENDS] as const)('the user turn limit on %s', (kind) => {
  let handle: TestDatabase | undefined;
  let repository: ChatRepository;
  /** A second connection to the same database (the in-memory store has only itself). */
  let other: ChatRepository;
  let otherDatabase: TestDatabase['database'] | undefined;
  let chats = 0;

  beforeAll(async () => {
    if (kind === 'memory') {
      repository = new InMemoryChatRepository();
      other = repository;
      return;
    }
    handle = await createTestDatabase(kind);
    for (const [id, name] of [
      ['u1', 'alice'],
      ['u2', 'bob'],
    ]) {
      await handle.database.sql`INSERT INTO users (id, name, token_hash, created_at)
        VALUES (${id}, ${name}, ${`hash-${id}`}, ${at(0)})`;
    }
    repository = new DatabaseChatRepository(handle.database);
    otherDatabase = await handle.open();
    other = new DatabaseChatRepository(otherDatabase);
  });

  afterAll(() => handle?.dispose());

  async function createChat(userId = 'u1'): Promise<string> {
    chats += 1;
    const id = `chat-${chats}`;
    await repository.createChat(testChat(id, at(0), { userId }));
    return id;
  }

  const claim = (chatId: string, now: number, limit: number | undefined, store = repository.turns) =>
    store.claimTurn({
      chatId,
      turnId: crypto.randomUUID(),
      holder: 'holder',
      now: at(now),
      leaseExpiresAt: at(now + LEASE),
      userTurnLimit: limit,
    });

  const finish = (record: TurnRecord, now: number) =>
    repository.turns.finishTurn(
      { turnId: record.id, fencingToken: record.fencingToken, now: at(now) },
      { state: 'completed', endedAt: at(now) },
    );

  /** The chat's turn records as [state] (nothing stored: []). */
  const statesOf = async (chatId: string) =>
    (await repository.turns.listTurns(chatId)).map((turn) => turn.state);

  test("the owner's running turns count across chats; past the limit nothing is written", async () => {
    const [first, second, third] = [await createChat(), await createChat(), await createChat()];
    const running = [(await claim(first, 0, 2))!, (await claim(second, 0, 2))!];
    expect(running.map((record) => record.state)).toEqual(['running', 'running']);

    const refused = await claim(third, 10, 2).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(UserTurnLimitError);
    expect((refused as UserTurnLimitError).limit).toBe(2);
    expect(await statesOf(third)).toEqual([]);

    // Another user's turn is not held by this one's limit.
    const theirs = await createChat('u2');
    expect((await claim(theirs, 10, 2))?.state).toBe('running');

    // Once one of the owner's turns ended, the next claim passes.
    expect(await finish(running[0]!, 20)).toBe(true);
    expect((await claim(third, 30, 2))?.state).toBe('running');
    for (const chatId of [second, third, theirs]) {
      const record = (await repository.turns.latestTurn(chatId))!;
      await finish(record, 40);
    }
  });

  test('a busy chat is reported busy (undefined), also when its owner is at the limit', async () => {
    const chatId = await createChat();
    const record = (await claim(chatId, 0, 1))!;
    expect(await claim(chatId, 10, 1)).toBeUndefined();
    expect(await statesOf(chatId)).toEqual(['running']);
    await finish(record, 20);
  });

  test('a turn whose lease lapsed no longer counts; without a limit nothing is counted', async () => {
    const [stale, next, more] = [await createChat(), await createChat(), await createChat()];
    await claim(stale, 0, 1);
    await expect(claim(next, LEASE, 1)).rejects.toBeInstanceOf(UserTurnLimitError);
    // One millisecond past its expiry the lapsed turn is its holder's loss, not the owner's share.
    const taken = (await claim(next, LEASE + 1, 1))!;
    expect(taken.state).toBe('running');
    expect((await claim(more, LEASE + 2, undefined))?.state).toBe('running');
    await finish(taken, LEASE + 3);
    await finish((await repository.turns.latestTurn(more))!, LEASE + 3);
  });

  test('claims racing over two connections: exactly the limit win, the rest are refused', async () => {
    const chatIds: string[] = [];
    for (let index = 0; index < 8; index++) chatIds.push(await createChat());
    if (handle) {
      // Every pooled connection open beforehand, so the claims really run side by side.
      const warm = (database: TestDatabase['database']) =>
        Promise.all(chatIds.map(() => database.sql`SELECT id FROM chats WHERE id = ${chatIds[0]}`));
      await Promise.all([warm(handle.database), warm(otherDatabase!)]);
    }
    const outcomes = await Promise.allSettled(
      chatIds.map((chatId, index) =>
        claim(chatId, 100_000, 3, index % 2 === 0 ? repository.turns : other.turns),
      ),
    );
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value !== undefined);
    const refused = outcomes.filter(
      (outcome) => outcome.status === 'rejected' && outcome.reason instanceof UserTurnLimitError,
    );
    expect({ won: won.length, refused: refused.length }).toEqual({ won: 3, refused: 5 });
    let stored = 0;
    for (const chatId of chatIds) stored += (await statesOf(chatId)).length;
    expect(stored).toBe(3);
  });
});
