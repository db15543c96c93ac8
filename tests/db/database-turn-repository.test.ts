/**
 * The turn store's contract on SQLite and PostgreSQL, driven directly: one running turn per chat,
 * fencing tokens that only grow, every write refused once another turn took over or the lease lapsed
 * (and nothing written), the token-only fence for a write under way, idempotent retries, replay pages.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import type { TurnFence } from '../../src/turns/turn-fence.ts';
import { TurnFencedError } from '../../src/turns/turn-fence.ts';
import type { TurnRecord } from '../../src/turns/turn-repository.ts';
import { testChat } from '../helpers/test-chat.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const at = (offset: number) => new Date(T0 + offset).toISOString();

describe.each(BACKENDS)('DatabaseTurnRepository on %s', (backend) => {
  let handle: TestDatabase;
  let repository: DatabaseChatRepository;
  let chats = 0;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    repository = new DatabaseChatRepository(handle.database);
    await handle.database.sql`INSERT INTO users (id, name, token_hash, created_at)
      VALUES ('u1', 'alice', 'hash', ${at(0)})`;
  }, 30_000);

  afterAll(() => handle.dispose());

  async function createChat(): Promise<string> {
    chats += 1;
    const id = `chat-${chats}`;
    await repository.createChat(testChat(id, at(0)));
    return id;
  }

  const claim = (chatId: string, turnId: string, now: number, deadTurnId?: string) =>
    repository.turns.claimTurn({
      chatId,
      turnId,
      holder: `holder-${turnId}`,
      now: at(now),
      leaseExpiresAt: at(now + 1_000),
      deadTurnId,
    });
  const fenceOf = (record: TurnRecord, now: number): TurnFence => ({
    turnId: record.id,
    fencingToken: record.fencingToken,
    now: at(now),
  });

  test('one running turn per chat; a lapsed one is taken over with the next token and writes nothing more', async () => {
    const chatId = await createChat();
    const first = (await claim(chatId, 'a', 0))!;
    expect(first).toMatchObject({ fencingToken: 1, state: 'running', messageSeqAtStart: 0 });
    expect(await claim(chatId, 'b', 500)).toBeUndefined();
    await repository.turns.appendTurnMessage(fenceOf(first, 100), chatId, 'm1', {
      type: 'user_text',
      text: 'hi',
    });

    const second = (await claim(chatId, 'c', 1_001))!;
    expect(second).toMatchObject({ fencingToken: 2, state: 'running', messageSeqAtStart: 1 });
    expect((await repository.turns.getTurn('a'))?.state).toBe('lost');
    // The old holder, even with a clock that says its lease holds, is refused everywhere.
    const stale = fenceOf(first, 100);
    await expect(
      repository.turns.appendTurnMessage(stale, chatId, 'm2', { type: 'assistant_text', text: 'late' }),
    ).rejects.toBeInstanceOf(TurnFencedError);
    await expect(
      repository.turns.appendTurnEvents(stale, [
        { seq: 1, endOffset: 10, event: { type: 'text_delta', delta: 'x' } },
      ]),
    ).rejects.toBeInstanceOf(TurnFencedError);
    await expect(
      repository.turns.appendTurnMessage({ ...stale, requireLiveLease: false }, chatId, 'm3', {
        type: 'assistant_text',
        text: 'late',
      }),
    ).rejects.toBeInstanceOf(TurnFencedError);
    expect(await repository.turns.renewTurn(stale, at(5_000))).toBe(false);
    expect(await repository.turns.finishTurn(stale, { state: 'completed', endedAt: at(200) })).toBe(false);
    expect(await repository.turns.listTurnEvents('a', 0, 10)).toEqual([]);
    expect((await repository.listMessages(chatId)).map((message) => message.id)).toEqual(['m1']);
  });

  test('a lapsed lease refuses writes on its own clock; the token-only fence finishes a write under way', async () => {
    const chatId = await createChat();
    const turn = (await claim(chatId, 'd', 0))!;
    const lapsed = fenceOf(turn, 1_500);
    await expect(
      repository.turns.appendTurnMessage(lapsed, chatId, 'm4', { type: 'user_text', text: 'late' }),
    ).rejects.toBeInstanceOf(TurnFencedError);
    expect(await repository.turns.renewTurn(lapsed, at(3_000))).toBe(false);
    const stored = await repository.turns.appendTurnMessage(
      { ...lapsed, requireLiveLease: false },
      chatId,
      'm5',
      {
        type: 'user_text',
        text: 'under way',
      },
    );
    expect(stored).toMatchObject({ id: 'm5', seq: 1 });
    expect(
      await repository.turns.finishTurn(lapsed, {
        state: 'error',
        endedAt: at(1_600),
        error: { message: 'cut' },
      }),
    ).toBe(true);
    expect(await repository.turns.latestTurn(chatId)).toMatchObject({
      state: 'error',
      leaseExpiresAt: null,
      error: { message: 'cut' },
    });
  });

  test('retried writes are idempotent; events replay in pages after a seq; a provably dead holder is taken over at once', async () => {
    const chatId = await createChat();
    const turn = (await claim(chatId, 'e', 0))!;
    const fence = fenceOf(turn, 10);
    const events = [1, 2, 3].map((seq) => ({
      seq,
      endOffset: seq * 10,
      event: { type: 'text_delta' as const, delta: String(seq) },
    }));
    await repository.turns.appendTurnEvents(fence, events);
    await repository.turns.appendTurnEvents(fence, events.slice(1));
    const item = { type: 'user_text' as const, text: 'once' };
    const first = await repository.turns.appendTurnMessage(fence, chatId, 'm6', item);
    const retried = await repository.turns.appendTurnMessage(fence, chatId, 'm6', item);
    expect(retried).toEqual(first);
    expect((await repository.listMessages(chatId)).length).toBe(1);
    expect((await repository.turns.listTurnEvents('e', 1, 1)).map((event) => event.seq)).toEqual([2]);
    expect(await repository.turns.listTurnEvents('e', 0, 10)).toEqual(events);
    expect(await repository.turns.turnEventsEnd('e')).toEqual({ seq: 3, endOffset: 30 });

    // Its lease is unexpired, but the caller proved its holder dead.
    const next = (await claim(chatId, 'f', 20, 'e'))!;
    expect(next.fencingToken).toBe(2);
    expect(await repository.turns.listTurnEvents('e', 0, 10)).toEqual([]);
    expect(await repository.turns.requestTurnCancel('f', at(30))).toBe(true);
    expect((await repository.turns.getTurn('f'))?.cancelRequestedAt).toBe(at(30));
  });

  test('claims racing for one chat: exactly one wins', async () => {
    const chatId = await createChat();
    const outcomes = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => claim(chatId, id, 0)));
    expect(
      outcomes.filter((outcome) => outcome !== undefined).map((outcome) => outcome!.fencingToken),
    ).toEqual([1]);
  });
  test('listTurns returns every turn oldest first with the progress and usage finishTurn recorded', async () => {
    const chatId = await createChat();
    const first = (await claim(chatId, `${chatId}-a`, 0))!;
    const trace = {
      version: 1,
      dropped: 0,
      events: [{ at: 1, event: { type: 'done', reason: 'completed' } }],
    };
    const usage = { modelCalls: 1, inputTokens: 12, outputTokens: 3 };
    expect(
      await repository.turns.finishTurn(fenceOf(first, 10), {
        state: 'completed',
        endedAt: at(10),
        usage,
        durations: { totalMs: 10, toolMs: 0 },
        progress: trace,
      }),
    ).toBe(true);
    const second = (await claim(chatId, `${chatId}-b`, 20))!;
    const listed = await repository.turns.listTurns(chatId);
    expect(listed.map((turn) => [turn.id, turn.fencingToken, turn.state])).toEqual([
      [first.id, 1, 'completed'],
      [second.id, 2, 'running'],
    ]);
    expect(listed[0]).toMatchObject({ usage, progress: trace, durations: { totalMs: 10, toolMs: 0 } });
    expect(listed[1]).toMatchObject({ usage: null, progress: null, durations: null });
    expect(await repository.turns.listTurns('no-such-chat')).toEqual([]);
  });
});
