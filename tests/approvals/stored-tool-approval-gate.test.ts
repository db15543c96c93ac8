/**
 * The server's approval gate over the in-memory stores, timers fired by hand: the question is a row;
 * an answer reaches the waiting call at once through the wake-up, or at the next poll without it; the
 * timeout closes the row (an answer that won just before counts); a cancel and a lost lease end the
 * wait at once as `cancel` / `interrupted` and mark the row; a turn whose fence fails asks nothing.
 */
import { describe, expect, test } from 'bun:test';
import { StoredToolApprovalGate } from '../../src/approvals/stored-tool-approval-gate.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import { type TurnFence, TurnFencedError } from '../../src/turns/turn-fence.ts';
import { LocalWakeUps } from '../../src/turns/wake-up-source.ts';
import { manualTimers } from '../helpers/manual-timers.ts';
import { testChat } from '../helpers/test-chat.ts';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

async function setUp(options: { pollMilliseconds?: number } = {}) {
  const repository = new InMemoryChatRepository();
  await repository.createChat(testChat('chat', iso(T0)));
  const turn = (await repository.turns.claimTurn({
    chatId: 'chat',
    turnId: 'turn',
    holder: 'h',
    now: iso(T0),
    leaseExpiresAt: iso(T0 + 60_000),
  }))!;
  const timers = manualTimers();
  const wakeups = new LocalWakeUps();
  let lost = false;
  const fence = (): TurnFence => ({ turnId: turn.id, fencingToken: turn.fencingToken, now: iso(T0) });
  const gate = new StoredToolApprovalGate({
    store: repository.approvals,
    turnId: turn.id,
    chatId: 'chat',
    fencedWrite: (operation) => operation(fence()),
    isLost: () => lost,
    now: () => T0,
    pollMilliseconds: options.pollMilliseconds ?? 60_000,
    wakeups,
    timers: timers.timers,
    log: () => {},
  });
  const ask = (controller = new AbortController()) =>
    gate.ask(
      { callId: 'c1', name: 'bash', arguments: { command: 'ls' }, reason: 'asks', timeoutSeconds: 10 },
      controller.signal,
    );
  const waitingId = async () => (await repository.approvals.listWaiting(turn.id))[0]!.id;
  return { repository, timers, wakeups, gate, ask, waitingId, loseLease: () => (lost = true) };
}

describe('StoredToolApprovalGate', () => {
  test('records the question as a waiting row and resolves at once on a wake-up', async () => {
    const { repository, wakeups, ask, waitingId } = await setUp();
    const asked = await ask();
    expect(asked.pending).toEqual({
      callId: 'c1',
      name: 'bash',
      arguments: { command: 'ls' },
      reason: 'asks',
      requestedAt: iso(T0),
      expiresAt: iso(T0 + 10_000),
    });
    const id = await waitingId();
    expect(
      await repository.approvals.answerApproval(id, {
        decision: 'approved',
        reason: 'fine',
        now: iso(T0 + 1),
      }),
    ).toBe(true);
    wakeups.notify('approval', id);
    expect(await asked.answer).toEqual({ decision: 'approved', by: 'user', reason: 'fine' });
  });

  test('without a wake-up (another instance answered), the poll finds the answer', async () => {
    const { repository, ask, waitingId } = await setUp({ pollMilliseconds: 20 });
    const asked = await ask();
    await repository.approvals.answerApproval(await waitingId(), { decision: 'denied', now: iso(T0 + 1) });
    expect(await asked.answer).toEqual({ decision: 'denied', by: 'user' });
  });

  test('the timeout closes the row and denies; an answer that came first wins', async () => {
    const first = await setUp();
    const asked = await first.ask();
    const id = await first.waitingId();
    const timer = first.timers.pending.find((entry) => entry.milliseconds === 10_000)!;
    timer.callback();
    expect(await asked.answer).toEqual({ decision: 'denied', by: 'timeout' });
    expect((await first.repository.approvals.getApproval(id))?.state).toBe('timed_out');

    const second = await setUp();
    const raced = await second.ask();
    await second.repository.approvals.answerApproval(await second.waitingId(), {
      decision: 'approved',
      now: iso(T0 + 1),
    });
    second.timers.pending.find((entry) => entry.milliseconds === 10_000)!.callback();
    expect(await raced.answer).toEqual({ decision: 'approved', by: 'user' });
  });

  test('a cancel ends the wait at once as cancel; a lost lease as interrupted; the rows say so', async () => {
    const cancelled = await setUp();
    const controller = new AbortController();
    const asked = await cancelled.ask(controller);
    const id = await cancelled.waitingId();
    controller.abort();
    expect(await asked.answer).toEqual({ decision: 'denied', by: 'cancel' });
    expect((await cancelled.repository.approvals.getApproval(id))?.state).toBe('cancelled');
    // The timeout was cleared with the wait.
    expect(cancelled.timers.pending.every((entry) => entry.cleared)).toBe(true);

    const interrupted = await setUp();
    const lostController = new AbortController();
    const waiting = await interrupted.ask(lostController);
    const lostId = await interrupted.waitingId();
    interrupted.loseLease();
    lostController.abort();
    expect(await waiting.answer).toEqual({ decision: 'denied', by: 'interrupted' });
    expect((await interrupted.repository.approvals.getApproval(lostId))?.state).toBe('interrupted');
  });

  test('a turn whose fence no longer holds records no question', async () => {
    const { repository, gate } = await setUp();
    const refusing = new StoredToolApprovalGate({
      store: repository.approvals,
      turnId: 'turn',
      chatId: 'chat',
      fencedWrite: (operation) => operation({ turnId: 'turn', fencingToken: 99, now: iso(T0) }),
      isLost: () => false,
      now: () => T0,
      pollMilliseconds: 60_000,
      wakeups: new LocalWakeUps(),
      log: () => {},
    });
    expect(gate).toBeDefined();
    await expect(
      refusing.ask(
        { callId: 'c2', name: 'bash', arguments: {}, reason: 'asks', timeoutSeconds: 10 },
        new AbortController().signal,
      ),
    ).rejects.toBeInstanceOf(TurnFencedError);
    expect(await repository.approvals.listWaiting('turn')).toEqual([]);
  });
});
