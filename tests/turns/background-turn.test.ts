/**
 * One turn's run over the in-memory store, its timers and clock moved by hand: the lease renewed every
 * third of the lease, lost when a renewal is refused, when renewals fail past the lease, or when the
 * process was paused past it; every write fenced, retried through a short outage and stopped by a long
 * one; a write under way at the loss finished, later ones refused; a cancel recorded elsewhere seen at
 * the next poll; the end recorded with retries, and given up on at shutdown.
 */
import { describe, expect, test } from 'bun:test';
import { BackgroundTurn, LOST_LEASE_MESSAGE } from '../../src/turns/background-turn.ts';
import { TurnFencedError } from '../../src/turns/turn-fence.ts';
import { type ManualClock, manualClock, settle } from '../helpers/manual-clock.ts';
import {
  claimTestTurn,
  eventChannel,
  faultyStore,
  iso,
  LEASE,
  repositoryWithChat,
  TIMING,
} from '../helpers/turn-lifecycle.ts';

const UNREACHABLE_BEFORE_EXPIRY =
  'The database could not be reached before the turn lease expired; the turn was stopped.';

async function setUp(options: { now?: () => number; clock?: ManualClock } = {}) {
  const clock = options.clock ?? manualClock();
  const repository = await repositoryWithChat(clock.now());
  const faults = faultyStore(repository.turns);
  const record = (await claimTestTurn(repository, clock.now(), 'this-instance'))!;
  const lines: string[] = [];
  const run = new BackgroundTurn({
    store: faults.store,
    record,
    timing: TIMING,
    now: options.now ?? clock.now,
    log: (line) => lines.push(line),
    timers: clock.timers,
  });
  const start = clock.now();
  /** Another instance takes the chat over (this one's holder was found dead): token 2. */
  const takeOver = async () => {
    await repository.turns.markTurnLost('chat', iso(clock.now()), 'taken over', 'turn');
    return claimTestTurn(repository, clock.now(), 'other-instance', 'other-turn');
  };
  const stored = () => repository.turns.getTurn('turn');
  const messages = async () => (await repository.listMessages('chat')).map((message) => message.item);
  return { clock, repository, faults, run, lines, start, takeOver, stored, messages };
}

describe('lease renewal', () => {
  test('renews every third of the lease, so the turn outlives its first lease', async () => {
    const { clock, run, start, stored, messages } = await setUp();
    run.startTimers();
    await clock.advance(999);
    expect((await stored())?.leaseExpiresAt).toBe(iso(start + LEASE));
    await clock.advance(1);
    expect((await stored())?.leaseExpiresAt).toBe(iso(start + 1_000 + LEASE));
    await clock.advance(4_000);
    expect((await stored())?.leaseExpiresAt).toBe(iso(start + 5_000 + LEASE));
    expect(run.isLost).toBe(false);
    // Past the first lease, its writes still hold.
    await run.saveItem({ type: 'assistant_text', text: 'still here' });
    expect(await messages()).toEqual([{ type: 'assistant_text', text: 'still here' }]);
  });

  test('renewals failing for less than the lease cost nothing: the next one extends it', async () => {
    const { clock, faults, run, start, stored, lines } = await setUp();
    run.startTimers();
    faults.cut('renewTurn');
    await clock.advance(2_500);
    expect(lines).toEqual([
      'Renewing the lease of turn turn failed: Connection closed',
      'Renewing the lease of turn turn failed: Connection closed',
    ]);
    faults.restore();
    await clock.advance(500);
    expect(run.isLost).toBe(false);
    expect((await stored())?.leaseExpiresAt).toBe(iso(start + 3_000 + LEASE));
  });

  test('renewals failing past the lease stop the turn: the database could not be reached', async () => {
    const { clock, faults, run, lines } = await setUp();
    run.startTimers();
    faults.cut('renewTurn');
    await clock.advance(3_999);
    expect(run.isLost).toBe(false);
    await clock.advance(1);
    expect(run.isLost).toBe(true);
    expect(run.controller.signal.aborted).toBe(true);
    expect(run.terminal).toEqual({ type: 'done', reason: 'error', message: UNREACHABLE_BEFORE_EXPIRY });
    expect(lines.at(-1)).toBe(`Turn turn of chat chat stopped: ${UNREACHABLE_BEFORE_EXPIRY}`);
  });

  test('a renewal the store refuses (another instance took the chat over) loses the turn at once', async () => {
    const { clock, run, takeOver, faults } = await setUp();
    run.startTimers();
    expect((await takeOver())?.fencingToken).toBe(2);
    await clock.advance(1_000);
    expect(faults.callsOf('renewTurn').length).toBe(1);
    expect(run.isLost).toBe(true);
    expect(run.terminal).toEqual({ type: 'done', reason: 'error', message: LOST_LEASE_MESSAGE });
  });

  test('a process paused past its lease loses the turn at its first late tick, saying so', async () => {
    const { clock, run, faults } = await setUp();
    run.startTimers();
    await clock.advance(1_000);
    clock.jump(LEASE + 1_000); // SIGSTOP: no timer runs meanwhile
    expect(run.isLost).toBe(false);
    await clock.advance(0);
    expect(run.terminal).toEqual({ type: 'done', reason: 'error', message: LOST_LEASE_MESSAGE });
    // It was lost before asking the store: the late tick renews nothing.
    expect(faults.callsOf('renewTurn').length).toBe(1);
    await expect(run.saveItem({ type: 'assistant_text', text: 'late' })).rejects.toThrow(LOST_LEASE_MESSAGE);
  });
});

describe('fencing', () => {
  test('a write refused by the fence loses the turn and stores nothing; later writes are refused at once', async () => {
    const { run, takeOver, messages, faults } = await setUp();
    await takeOver();
    const refused = run.saveItem({ type: 'assistant_text', text: 'stale' });
    await expect(refused).rejects.toBeInstanceOf(TurnFencedError);
    await expect(refused).rejects.toThrow(LOST_LEASE_MESSAGE);
    expect(run.isLost).toBe(true);
    expect(run.controller.signal.aborted).toBe(true);
    const before = faults.calls.length;
    await expect(run.fencedWrite(async () => 'x')).rejects.toBeInstanceOf(TurnFencedError);
    expect(faults.calls.length).toBe(before);
    expect(await messages()).toEqual([]);
  });

  test('a write under way when the turn is lost lands once, under a token-only fence; nothing after it', async () => {
    const { clock, run, faults, messages } = await setUp();
    run.startTimers();
    faults.hold('appendTurnMessage');
    const inFlight = run.saveItem({
      type: 'tool_result',
      callId: 'c1',
      name: 'bash',
      ok: true,
      output: 'ok',
    });
    await settle();
    expect(faults.isHeld('appendTurnMessage')).toBe(true);
    clock.jump(LEASE + 1_000);
    await clock.advance(0);
    expect(run.isLost).toBe(true);
    // Its reply is lost (the database went away); the retry carries the token only, as the lease lapsed.
    faults.release('appendTurnMessage', Object.assign(new Error('reply lost'), { code: 'ECONNRESET' }));
    await settle();
    await clock.advance(TIMING.retryMilliseconds);
    expect((await inFlight).item).toEqual({
      type: 'tool_result',
      callId: 'c1',
      name: 'bash',
      ok: true,
      output: 'ok',
    });
    const writes = faults.callsOf('appendTurnMessage');
    expect(writes.map((call) => [call.failed, call.fence?.requireLiveLease])).toEqual([
      [true, undefined],
      [false, false],
    ]);
    await expect(run.saveItem({ type: 'assistant_text', text: 'after' })).rejects.toThrow(LOST_LEASE_MESSAGE);
    expect((await messages()).length).toBe(1);
  });
});

describe('outage retries', () => {
  test('a write during a short outage is retried every retry interval and stored once', async () => {
    const { clock, run, faults, messages } = await setUp();
    faults.cut('appendTurnMessage');
    const saved = run.saveItem({ type: 'assistant_text', text: 'once' });
    await settle();
    expect(faults.callsOf('appendTurnMessage').length).toBe(1);
    await clock.advance(TIMING.retryMilliseconds);
    expect(faults.callsOf('appendTurnMessage').length).toBe(2);
    faults.restore();
    await clock.advance(TIMING.retryMilliseconds);
    expect((await saved).item).toEqual({ type: 'assistant_text', text: 'once' });
    expect(faults.callsOf('appendTurnMessage').map((call) => call.failed)).toEqual([true, true, false]);
    expect(await messages()).toEqual([{ type: 'assistant_text', text: 'once' }]);
    expect(run.isLost).toBe(false);
  });

  test('a write failing past the lease stops the turn, naming the failure; the write itself still lands once', async () => {
    const { clock, run, faults, messages, lines } = await setUp();
    faults.cut('appendTurnMessage');
    const saved = run.saveItem({ type: 'assistant_text', text: 'late but kept' });
    await clock.advance(LEASE);
    expect(run.isLost).toBe(false);
    await clock.advance(TIMING.retryMilliseconds);
    const message =
      'The database could not be reached before the turn lease expired (Connection closed); the turn was stopped.';
    expect(run.terminal).toEqual({ type: 'done', reason: 'error', message });
    expect(run.controller.signal.aborted).toBe(true);
    expect(lines).toEqual([`Turn turn of chat chat stopped: ${message}`]);
    // What the turn produced before it stopped is finished, not dropped: retried under the token alone.
    faults.restore();
    await clock.advance(TIMING.retryMilliseconds);
    expect((await saved).item).toEqual({ type: 'assistant_text', text: 'late but kept' });
    expect(faults.callsOf('appendTurnMessage').at(-1)?.fence?.requireLiveLease).toBe(false);
    expect(await messages()).toEqual([{ type: 'assistant_text', text: 'late but kept' }]);
  });

  test('a write failing for a whole lease of real time stops the turn even if the wall clock stands still', async () => {
    const clock = manualClock();
    const frozen = clock.now();
    const { run, faults } = await setUp({ clock, now: () => frozen });
    faults.cut('appendTurnMessage');
    const saved = run.saveItem({ type: 'assistant_text', text: 'x' });
    await clock.advance(LEASE);
    expect(run.isLost).toBe(false);
    await clock.advance(TIMING.retryMilliseconds);
    expect(run.isLost).toBe(true);
    faults.restore();
    await clock.advance(TIMING.retryMilliseconds);
    expect((await saved).item).toEqual({ type: 'assistant_text', text: 'x' });
  });

  test('a read the turn needs is retried only for the failures named retryable', async () => {
    const { clock, run } = await setUp();
    let reads = 0;
    const read = run.retriedRead(
      async () => {
        reads += 1;
        if (reads < 3) throw new Error('unreachable');
        return 'access';
      },
      (error) => error instanceof Error && error.message === 'unreachable',
    );
    await clock.advance(2 * TIMING.retryMilliseconds);
    expect(await read).toBe('access');
    expect(reads).toBe(3);
    const refused = new Error('access refused');
    await expect(
      run.retriedRead(
        async () => {
          throw refused;
        },
        () => false,
      ),
    ).rejects.toBe(refused);
    expect(run.isLost).toBe(false);
  });
});

describe('cancel', () => {
  test('a cancel another instance recorded aborts the turn at the next cancel poll', async () => {
    const { clock, run, repository } = await setUp();
    run.startTimers();
    await clock.advance(100);
    expect(await repository.turns.requestTurnCancel('turn', iso(clock.now()))).toBe(true);
    await clock.advance(TIMING.cancelPollMilliseconds - 101);
    expect(run.controller.signal.aborted).toBe(false);
    await clock.advance(1);
    expect(run.controller.signal.aborted).toBe(true);
    expect(run.isLost).toBe(false);
  });
});

describe('driving a turn to its end', () => {
  test('persists every event in order, then records the end with its usage and durations', async () => {
    const { clock, run, repository, stored, start } = await setUp();
    const channel = eventChannel();
    const driven = run.drive(channel.events);
    channel.send(
      { type: 'text_delta', delta: 'Hel' },
      { type: 'text_delta', delta: 'lo' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 7, outputTokens: 2 } },
    );
    await clock.advance(250);
    channel.send({ type: 'done', reason: 'completed' });
    channel.close();
    await driven;
    expect(run.finished).toBe(true);
    const events = await repository.turns.listTurnEvents('turn', 0, 100);
    expect(events.map((event) => event.event)).toEqual([
      { type: 'text_delta', delta: 'Hel' },
      { type: 'text_delta', delta: 'lo' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 7, outputTokens: 2 } },
      { type: 'done', reason: 'completed' },
    ]);
    expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
    expect(await stored()).toMatchObject({
      state: 'completed',
      endedAt: iso(start + 250),
      leaseExpiresAt: null,
      usage: { modelCalls: 1, inputTokens: 7, outputTokens: 2 },
      durations: { totalMs: 250, toolMs: 0 },
      error: null,
    });
  });

  test('the end is retried with a doubling pause until it is recorded', async () => {
    const { clock, run, faults, stored, lines } = await setUp();
    const channel = eventChannel();
    faults.cut('finishTurn');
    const driven = run.drive(channel.events);
    channel.send({ type: 'done', reason: 'completed' });
    channel.close();
    await settle();
    expect(faults.callsOf('finishTurn').length).toBe(1);
    await clock.advance(TIMING.retryMilliseconds);
    expect(faults.callsOf('finishTurn').length).toBe(2);
    await clock.advance(2 * TIMING.retryMilliseconds - 1);
    expect(faults.callsOf('finishTurn').length).toBe(2);
    faults.restore();
    await clock.advance(1);
    await driven;
    expect(faults.callsOf('finishTurn').map((call) => call.failed)).toEqual([true, true, false]);
    expect((await stored())?.state).toBe('completed');
    expect(lines).toEqual([
      'Recording the end of turn turn failed, retrying: Connection closed',
      'Recording the end of turn turn failed, retrying: Connection closed',
    ]);
  });

  test('a lost turn still records its end once the database is back, as an error saying why', async () => {
    const { clock, run, faults, stored } = await setUp();
    const channel = eventChannel();
    run.startTimers();
    const driven = run.drive(channel.events);
    faults.cut('renewTurn', 'finishTurn', 'appendTurnEvents');
    await clock.advance(LEASE + 1_000);
    expect(run.isLost).toBe(true);
    // The loop sees the abort and ends; what it says last is replaced by the reason of the loss.
    channel.send({ type: 'done', reason: 'cancelled' });
    channel.close();
    await clock.advance(TIMING.retryMilliseconds);
    expect(run.finished).toBe(false);
    faults.restore();
    await clock.advance(2 * TIMING.retryMilliseconds);
    await driven;
    expect(await stored()).toMatchObject({
      state: 'error',
      error: { message: UNREACHABLE_BEFORE_EXPIRY },
    });
  });

  test('after abandon (shutdown), a failing end record stops retrying and the run ends', async () => {
    const { clock, run, faults, stored } = await setUp();
    const channel = eventChannel();
    faults.cut('finishTurn');
    const driven = run.drive(channel.events);
    channel.send({ type: 'done', reason: 'completed' });
    channel.close();
    await settle();
    run.abandon();
    await clock.advance(TIMING.retryMilliseconds);
    await driven;
    expect(faults.callsOf('finishTurn').length).toBe(2);
    expect((await stored())?.state).toBe('running');
    expect(clock.pendingCount()).toBe(0);
  });
});

describe('scenario: the database is cut while a tool runs and back within the lease', () => {
  test('the turn completes and every item is stored exactly once', async () => {
    const { clock, run, faults, messages, stored } = await setUp();
    run.startTimers();
    const channel = eventChannel();
    const driven = run.drive(channel.events);
    await run.saveItem({ type: 'tool_call', callId: 'b1', name: 'bash', arguments: '{}' });
    channel.send({ type: 'tool_call_started', callId: 'b1', name: 'bash' });
    // The tool runs; the database goes away meanwhile, for a third of the lease.
    faults.cut('renewTurn', 'appendTurnMessage', 'appendTurnEvents', 'getTurn');
    const result = run.saveItem({ type: 'tool_result', callId: 'b1', name: 'bash', ok: true, output: '0' });
    await clock.advance(1_000);
    faults.restore();
    await clock.advance(1_000);
    await result;
    await run.saveItem({ type: 'assistant_text', text: 'Slept.' });
    channel.send({ type: 'done', reason: 'completed' });
    channel.close();
    await clock.advance(TIMING.retryMilliseconds);
    await driven;
    expect(await messages()).toEqual([
      { type: 'tool_call', callId: 'b1', name: 'bash', arguments: '{}' },
      { type: 'tool_result', callId: 'b1', name: 'bash', ok: true, output: '0' },
      { type: 'assistant_text', text: 'Slept.' },
    ]);
    expect((await stored())?.state).toBe('completed');
  });
});
