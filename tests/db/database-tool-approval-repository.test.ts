/**
 * The approval store's contract (`tool-approval-repository.ts`) on SQLite, PostgreSQL and in memory, driven
 * directly: a question is recorded only under its turn's fence; an answer only while it waits, before it
 * expires and while its turn runs with a live lease; it leaves `waiting` exactly once (of concurrent
 * answers one wins); `findApproval` looks in the chat's newest turn only; `listWaiting` and the cascade
 * when the chat is deleted.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { NewToolApproval, ToolApprovalRecord } from '../../src/approvals/tool-approval-repository.ts';
import type { ChatRepository } from '../../src/chat/chat-repository.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { type TurnFence, TurnFencedError } from '../../src/turns/turn-fence.ts';
import type { TurnRecord } from '../../src/turns/turn-repository.ts';
import { testChat } from '../helpers/test-chat.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const at = (offset: number) => new Date(T0 + offset).toISOString();

describe.each(['memory', ...BACKENDS] as const)('the approval store on %s', (backend) => {
  let handle: TestDatabase | undefined;
  let repository: ChatRepository;
  let chats = 0;

  beforeAll(async () => {
    if (backend === 'memory') {
      repository = new InMemoryChatRepository();
      return;
    }
    handle = await createTestDatabase(backend);
    repository = new DatabaseChatRepository(handle.database);
    await handle.database.sql`INSERT INTO users (id, name, token_hash, created_at)
      VALUES ('u1', 'alice', 'hash', ${at(0)})`;
  }, 30_000);
  afterAll(() => handle?.dispose());

  async function runningTurn(leaseMs = 10_000): Promise<{ chatId: string; turn: TurnRecord }> {
    chats += 1;
    const chatId = `chat-${chats}`;
    await repository.createChat(testChat(chatId, at(0)));
    const turn = await repository.turns.claimTurn({
      chatId,
      turnId: `turn-${chats}-${crypto.randomUUID()}`,
      holder: 'h',
      now: at(0),
      leaseExpiresAt: at(leaseMs),
    });
    return { chatId, turn: turn! };
  }
  const fenceOf = (turn: TurnRecord, now = 0): TurnFence => ({
    turnId: turn.id,
    fencingToken: turn.fencingToken,
    now: at(now),
  });
  const question = (turn: TurnRecord, chatId: string, callId = 'call-1'): NewToolApproval => ({
    id: crypto.randomUUID(),
    turnId: turn.id,
    chatId,
    callId,
    name: 'bash',
    arguments: { command: 'git push' },
    reason: 'bash asks before every call ("approval" is "always").',
    requestedAt: at(0),
    expiresAt: at(5_000),
  });

  test('a recorded question reads back whole, waits, and is listed', async () => {
    const { chatId, turn } = await runningTurn();
    const asked = question(turn, chatId);
    await repository.approvals.insertApproval(fenceOf(turn), asked);
    const expected: ToolApprovalRecord = {
      ...asked,
      state: 'waiting',
      decisionReason: null,
      resolvedAt: null,
      remembered: null,
    };
    expect(await repository.approvals.getApproval(asked.id)).toEqual(expected);
    expect(await repository.approvals.findApproval(chatId, 'call-1')).toEqual(expected);
    expect(await repository.approvals.listWaiting(turn.id)).toEqual([expected]);
    expect(await repository.approvals.findApproval(chatId, 'other')).toBeUndefined();
  });

  test('no question is recorded once the fence fails (lease lapsed, wrong token)', async () => {
    const { chatId, turn } = await runningTurn(1_000);
    await expect(
      repository.approvals.insertApproval(fenceOf(turn, 2_000), question(turn, chatId)),
    ).rejects.toBeInstanceOf(TurnFencedError);
    await expect(
      repository.approvals.insertApproval({ ...fenceOf(turn), fencingToken: 99 }, question(turn, chatId)),
    ).rejects.toBeInstanceOf(TurnFencedError);
    expect(await repository.approvals.listWaiting(turn.id)).toEqual([]);
  });

  test('an answer is taken once, with its reason and remembered rule; a second one is refused', async () => {
    const { chatId, turn } = await runningTurn();
    const asked = question(turn, chatId);
    await repository.approvals.insertApproval(fenceOf(turn), asked);
    const remembered = { setting: 'autoApprovedCommands', rule: 'git push' } as const;
    const answers = await Promise.all([
      repository.approvals.answerApproval(asked.id, {
        decision: 'approved',
        reason: 'ok',
        remembered,
        now: at(100),
      }),
      repository.approvals.answerApproval(asked.id, { decision: 'denied', now: at(100) }),
    ]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    const record = await repository.approvals.getApproval(asked.id);
    if (answers[0]) {
      expect(record).toMatchObject({
        state: 'approved',
        decisionReason: 'ok',
        remembered,
        resolvedAt: at(100),
      });
    } else {
      expect(record).toMatchObject({ state: 'denied', decisionReason: null, remembered: null });
    }
    expect(await repository.approvals.closeApproval(asked.id, 'timed_out', at(200))).toBe(false);
    expect(await repository.approvals.listWaiting(turn.id)).toEqual([]);
  });

  test('an answer is refused after the expiry, after the lease lapsed, and once the turn ended', async () => {
    const { chatId, turn } = await runningTurn(10_000);
    const late = question(turn, chatId, 'late');
    await repository.approvals.insertApproval(fenceOf(turn), late);
    expect(await repository.approvals.answerApproval(late.id, { decision: 'approved', now: at(5_000) })).toBe(
      false,
    );

    const { chatId: other, turn: short } = await runningTurn(1_000);
    const lapsed = { ...question(short, other, 'lapsed'), expiresAt: at(60_000) };
    await repository.approvals.insertApproval(fenceOf(short), lapsed);
    expect(
      await repository.approvals.answerApproval(lapsed.id, { decision: 'approved', now: at(1_500) }),
    ).toBe(false);

    const { chatId: third, turn: ended } = await runningTurn();
    const orphan = question(ended, third, 'orphan');
    await repository.approvals.insertApproval(fenceOf(ended), orphan);
    await repository.turns.finishTurn(fenceOf(ended, 10), { state: 'cancelled', endedAt: at(10) });
    expect(await repository.approvals.answerApproval(orphan.id, { decision: 'approved', now: at(20) })).toBe(
      false,
    );
    expect((await repository.approvals.getApproval(orphan.id))?.state).toBe('waiting');
  });

  test('closing wins only over a waiting question', async () => {
    const { chatId, turn } = await runningTurn();
    const asked = question(turn, chatId);
    await repository.approvals.insertApproval(fenceOf(turn), asked);
    expect(await repository.approvals.closeApproval(asked.id, 'cancelled', at(50))).toBe(true);
    expect(await repository.approvals.answerApproval(asked.id, { decision: 'approved', now: at(60) })).toBe(
      false,
    );
    expect(await repository.approvals.getApproval(asked.id)).toMatchObject({
      state: 'cancelled',
      resolvedAt: at(50),
    });
  });

  test("findApproval looks in the chat's newest turn only; deleting the chat deletes its questions", async () => {
    const { chatId, turn } = await runningTurn();
    const first = question(turn, chatId, 'same-id');
    await repository.approvals.insertApproval(fenceOf(turn), first);
    await repository.turns.finishTurn(fenceOf(turn, 10), { state: 'completed', endedAt: at(10) });
    expect((await repository.approvals.findApproval(chatId, 'same-id'))?.id).toBe(first.id);
    const next = await repository.turns.claimTurn({
      chatId,
      turnId: `next-${crypto.randomUUID()}`,
      holder: 'h',
      now: at(20),
      leaseExpiresAt: at(10_000),
    });
    expect(await repository.approvals.findApproval(chatId, 'same-id')).toBeUndefined();
    const second = { ...question(next!, chatId, 'same-id'), requestedAt: at(30) };
    await repository.approvals.insertApproval(fenceOf(next!, 30), second);
    expect((await repository.approvals.findApproval(chatId, 'same-id'))?.id).toBe(second.id);
    // A call id reused within the turn: the waiting question is the one meant, even beside a newer closed one.
    const third = { ...question(next!, chatId, 'same-id'), requestedAt: at(10) };
    await repository.approvals.insertApproval(fenceOf(next!, 40), third);
    await repository.approvals.closeApproval(third.id, 'cancelled', at(40));
    expect((await repository.approvals.findApproval(chatId, 'same-id'))?.id).toBe(second.id);
    await repository.approvals.closeApproval(second.id, 'timed_out', at(50));
    expect((await repository.approvals.findApproval(chatId, 'same-id'))?.id).toBe(second.id);
    await repository.deleteChat(chatId);
    expect(await repository.approvals.getApproval(second.id)).toBeUndefined();
    expect(await repository.approvals.getApproval(first.id)).toBeUndefined();
  });
});
