/**
 * Following a turn over the in-memory store, its polls moved by hand: a follower on another instance
 * replays after a seq and polls for the rest, reports `done` only once the end is recorded, and calls a
 * turn whose lease lapsed lost; a follower of this process's run that stops reading (a stalled or gone
 * client) never affects the turn, and measures how far behind it is.
 */
import { describe, expect, test } from 'bun:test';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { BackgroundTurn } from '../../src/turns/background-turn.ts';
import { serializeTurnEvent } from '../../src/turns/turn-event-json.ts';
import { followTurn, LOST_TURN_MESSAGE } from '../../src/turns/turn-follower.ts';
import { manualClock, settle } from '../helpers/manual-clock.ts';
import {
  claimTestTurn,
  collect,
  eventChannel,
  iso,
  LEASE,
  repositoryWithChat,
  TIMING,
} from '../helpers/turn-lifecycle.ts';

const POLL = TIMING.followPollMilliseconds;

async function setUp() {
  const clock = manualClock();
  const repository = await repositoryWithChat(clock.now());
  const record = (await claimTestTurn(repository, clock.now(), 'other-instance'))!;
  const fence = () => ({ turnId: 'turn', fencingToken: record.fencingToken, now: iso(clock.now()) });
  let seq = 0;
  let offset = 0;
  /** What the instance running the turn persists. */
  const persist = (...events: TurnEvent[]) =>
    repository.turns.appendTurnEvents(
      fence(),
      events.map((event) => {
        seq += 1;
        offset += serializeTurnEvent(event).length;
        return { seq, endOffset: offset, event };
      }),
    );
  const follow = (afterSeq: number) =>
    followTurn({
      store: repository.turns,
      turnId: 'turn',
      afterSeq,
      pollMilliseconds: POLL,
      now: clock.now,
      timers: clock.timers,
    });
  return { clock, repository, record, fence, persist, follow };
}

describe('following a turn another instance runs', () => {
  test('replays after the seq given, polls for new events, and ends once the end is recorded', async () => {
    const { clock, repository, fence, persist, follow } = await setUp();
    await persist({ type: 'text_delta', delta: 'a' }, { type: 'text_delta', delta: 'b' });
    const follower = follow(1);
    expect((await follower.next()).value).toEqual({ type: 'text_delta', delta: 'b' });
    expect(follower.lastSeq).toBe(2);
    const third = follower.next();
    await clock.advance(POLL - 1);
    await persist({ type: 'text_delta', delta: 'c' });
    await clock.advance(1);
    expect((await third).value).toEqual({ type: 'text_delta', delta: 'c' });
    // `done` is persisted before the end is recorded: the follower holds it until the chat is free.
    await persist({ type: 'done', reason: 'completed' });
    let ended = false;
    const last = follower.next().then((step) => {
      ended = true;
      return step;
    });
    await clock.advance(200);
    expect(ended).toBe(false);
    await repository.turns.finishTurn(fence(), { state: 'completed', endedAt: iso(clock.now()) });
    await clock.advance(50);
    expect((await last).value).toEqual({ type: 'done', reason: 'completed' });
    expect((await follower.next()).done).toBe(true);
  });

  test('a turn whose lease lapsed without a done is ended as lost, and marked so', async () => {
    const { clock, repository, persist, follow } = await setUp();
    await persist({ type: 'text_delta', delta: 'partial' });
    const events = collect(follow(0));
    await clock.advance(LEASE);
    expect((await repository.turns.getTurn('turn'))?.state).toBe('running');
    await clock.advance(POLL);
    expect(await events).toEqual([
      { type: 'text_delta', delta: 'partial' },
      { type: 'done', reason: 'error', message: LOST_TURN_MESSAGE },
    ]);
    expect(await repository.turns.getTurn('turn')).toMatchObject({
      state: 'lost',
      error: { message: LOST_TURN_MESSAGE },
    });
  });

  test('an ended turn without a persisted done reports the end its record states', async () => {
    const { repository, fence, persist, follow } = await setUp();
    await persist({ type: 'text_delta', delta: 'x' });
    await repository.turns.finishTurn(fence(), {
      state: 'cancelled',
      endedAt: iso(0),
      error: { message: 'Stopped at shutdown.' },
    });
    expect(await collect(follow(1))).toEqual([
      { type: 'done', reason: 'cancelled', message: 'Stopped at shutdown.' },
    ]);
  });
});

describe('scenario: a stalled client of this process', () => {
  test('never holds the turn back, is measured behind by the bytes it did not take, and can re-attach', async () => {
    const clock = manualClock();
    const repository = await repositoryWithChat(clock.now());
    const record = (await claimTestTurn(repository, clock.now(), 'this-instance'))!;
    const run = new BackgroundTurn({
      store: repository.turns,
      record,
      timing: TIMING,
      now: clock.now,
      log: () => {},
      timers: clock.timers,
    });
    const local = (afterSeq: number) =>
      followTurn({
        store: repository.turns,
        turnId: 'turn',
        afterSeq,
        local: run,
        pollMilliseconds: POLL,
        now: clock.now,
        timers: clock.timers,
      });
    const channel = eventChannel();
    run.startTimers();
    const driven = run.drive(channel.events);
    const stalled = local(0);
    const first = stalled.next();
    channel.send({ type: 'text_delta', delta: 'x'.repeat(100) });
    await settle();
    expect((await first).value).toEqual({ type: 'text_delta', delta: 'x'.repeat(100) });
    // It stops reading; the turn goes on to its end.
    const big = 'y'.repeat(4_096);
    channel.send({ type: 'text_delta', delta: big });
    await settle();
    channel.send(
      { type: 'tool_call_started', callId: 'c', name: 'bash' },
      { type: 'done', reason: 'completed' },
    );
    channel.close();
    await clock.advance(TIMING.retryMilliseconds);
    await driven;
    expect((await repository.turns.getTurn('turn'))?.state).toBe('completed');
    const stored = await repository.turns.listTurnEvents('turn', 0, 100);
    const behind = stored.at(-1)!.endOffset - stored[0]!.endOffset;
    expect(await stalled.lagBytes()).toBe(behind);
    await stalled.return?.();
    // Re-attached after the last id it had, it gets exactly the rest.
    expect(await collect(local(1))).toEqual(stored.slice(1).map((event) => event.event));
    expect(clock.pendingCount()).toBe(0);
  });
});
