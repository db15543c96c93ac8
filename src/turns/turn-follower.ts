/**
 * A client's view of one turn: replays its persisted events after a sequence number, then follows it
 * live until its `done`. The same reader serves a turn this process runs (woken at each persisted
 * batch) and one another instance runs (woken by its wake-ups, or polling the turn record), so a client
 * may attach anywhere.
 *
 * Guarantees:
 * - Events come in seq order without gaps or repeats, each exactly as persisted; the last is a `done`
 *   (a persisted one, or one built from the record when the turn ended without persisting it: lost
 *   lease, holder dead, chat deleted).
 * - Reading is pull-based: a client that stops reading holds at most one page of events in memory.
 * - Stopping to follow (`return()`) never affects the turn.
 */
import type { TurnDoneEvent, TurnEvent } from '../contracts/turn-event.ts';
import type { BackgroundTurn } from './background-turn.ts';
import { isHolderProvablyDead } from './turn-holder.ts';
import type { StoredTurnEvent, TurnRecord, TurnRepository } from './turn-repository.ts';
import { REAL_TURN_TIMERS, sleepOn, type TurnTimers } from './turn-timers.ts';
import { LocalWakeUps, WakeUpLatch, type WakeUpSource } from './wake-up-source.ts';

/**
 * Events read from the repository per query. A stored event holds up to 64 KiB of merged deltas, so a page
 * a stalled client's follower sits on is at most about 1 MiB.
 */
const PAGE = 16;
/** How long a follower on another instance waits for the holder to record the end after `done`. */
const END_WAIT_MILLISECONDS = 5_000;

export const LOST_TURN_MESSAGE =
  'The instance running this turn stopped (it crashed, was paused, or lost the database) before the turn ended; what it completed is kept in the chat.';

/** The events of a turn as a client reads them; `lastSeq` is the seq of the event just returned. */
export interface TurnFollower extends AsyncIterableIterator<TurnEvent> {
  readonly turnId: string;
  /** Seq of the last event returned; undefined for one built from the record (not persisted). */
  readonly lastSeq: number | undefined;
  /** Bytes of events persisted beyond what this follower returned. */
  lagBytes(): Promise<number>;
}

export interface FollowTurnOptions {
  store: TurnRepository;
  turnId: string;
  afterSeq: number;
  /** The run, when this process drives the turn. */
  local?: BackgroundTurn;
  pollMilliseconds: number;
  now: () => number;
  /** Its poll pauses and the monotonic clock bounding the wait for a recorded end (default: real). */
  timers?: TurnTimers;
  /** What wakes a follower of another instance's turn before its next poll (default: nothing). */
  wakeUps?: WakeUpSource;
}

function doneFromRecord(record: TurnRecord | undefined): TurnDoneEvent {
  if (!record) {
    return { type: 'done', reason: 'error', message: 'This turn no longer exists: its chat was deleted.' };
  }
  switch (record.state) {
    case 'completed':
    case 'max_iterations':
      return { type: 'done', reason: record.state };
    case 'cancelled':
      return {
        type: 'done',
        reason: 'cancelled',
        message: record.error?.message ?? 'The turn was cancelled.',
      };
    default:
      return { type: 'done', reason: 'error', message: record.error?.message ?? LOST_TURN_MESSAGE };
  }
}

/** Whether nobody can be running the turn any more (its lease lapsed, or its process is gone). */
export function isTurnAbandoned(record: TurnRecord, now: number): boolean {
  if (record.state !== 'running') return false;
  const lapsed = record.leaseExpiresAt !== null && Date.parse(record.leaseExpiresAt) < now;
  return lapsed || isHolderProvablyDead(record.holder);
}

export function followTurn(options: FollowTurnOptions): TurnFollower {
  const { store, turnId, local } = options;
  const timers = options.timers ?? REAL_TURN_TIMERS;
  let cursor = options.afterSeq;
  let deliveredOffset: number | undefined;
  let startOffset: number | undefined;
  let lastSeq: number | undefined;

  async function waitForRecordedEnd(): Promise<void> {
    if (local) {
      await local.ended;
      return;
    }
    // Real elapsed time, not the injected clock (which dates the lease and may stand still in tests).
    const deadline = timers.monotonic() + END_WAIT_MILLISECONDS;
    while (timers.monotonic() < deadline) {
      const record = await store.getTurn(turnId);
      if (record?.state !== 'running') return;
      await sleepOn(timers, Math.min(options.pollMilliseconds, 50));
    }
  }

  /** A page of events; for a local run, given up when the run is lost (its database may hang). */
  async function readPage(): Promise<StoredTurnEvent[] | undefined> {
    const held = local?.writtenEvents(cursor, PAGE);
    if (held !== undefined && held.length > 0) return held;
    const page = store.listTurnEvents(turnId, cursor, PAGE);
    if (!local) return page;
    page.catch(() => {});
    return Promise.race([page, local.lost.then(() => undefined)]);
  }

  const wakeUps = options.wakeUps ?? new LocalWakeUps();

  async function* read(): AsyncGenerator<StoredTurnEvent | { event: TurnDoneEvent }> {
    // Subscribed before the first read, so a batch persisted between a read and the wait is not missed;
    // here rather than at creation, so a follower never read holds no subscription.
    const latch = local ? undefined : new WakeUpLatch(wakeUps, 'turn', turnId);
    try {
      yield* readAll(latch);
    } finally {
      latch?.close();
    }
  }

  async function* readAll(
    latch: WakeUpLatch | undefined,
  ): AsyncGenerator<StoredTurnEvent | { event: TurnDoneEvent }> {
    for (;;) {
      if (local && local.persisted.seq <= cursor) {
        // Caught up with what this process persisted: no database read needed to wait for more.
        const terminal = local.terminal;
        if (terminal) {
          yield { event: terminal };
          return;
        }
        if (local.finished) {
          yield { event: doneFromRecord(await store.getTurn(turnId)) };
          return;
        }
        await local.changed();
        continue;
      }
      const page = await readPage();
      if (page === undefined) {
        // Lost while its database does not answer: say so now; the events persisted before stay
        // replayable once the database is back.
        yield { event: local!.terminal ?? { type: 'done', reason: 'error', message: LOST_TURN_MESSAGE } };
        return;
      }
      for (const stored of page) {
        cursor = stored.seq;
        if (stored.event.type === 'done') {
          // The chat is free once the end is recorded: a client that starts its next turn the moment
          // it sees `done` must not be told the chat is busy.
          await waitForRecordedEnd();
          yield stored;
          return;
        }
        yield stored;
      }
      if (page.length === PAGE || local) continue;
      const record = await store.getTurn(turnId);
      if ((await store.turnEventsEnd(turnId)).seq > cursor) continue; // written meanwhile
      if (record?.state !== 'running') {
        yield { event: doneFromRecord(record) };
        return;
      }
      if (isTurnAbandoned(record, options.now())) {
        const dead = isHolderProvablyDead(record.holder) ? record.id : undefined;
        await store.markTurnLost(
          record.chatId,
          new Date(options.now()).toISOString(),
          LOST_TURN_MESSAGE,
          dead,
        );
        yield { event: { type: 'done', reason: 'error', message: LOST_TURN_MESSAGE } };
        return;
      }
      const pause = wakeUps.pushing ? wakeUps.fallbackPollMilliseconds : options.pollMilliseconds;
      await latch!.wait(timers, pause);
    }
  }

  const inner = read();
  const follower: TurnFollower = {
    turnId,
    get lastSeq() {
      return lastSeq;
    },
    async next() {
      const step = await inner.next();
      if (step.done) return { done: true, value: undefined };
      const item = step.value;
      if ('seq' in item) {
        lastSeq = item.seq;
        deliveredOffset = item.endOffset;
      } else {
        lastSeq = undefined;
      }
      return { done: false, value: item.event };
    },
    async return() {
      await inner.return(undefined);
      return { done: true, value: undefined };
    },
    async lagBytes() {
      const head = local ? local.persisted.endOffset : (await store.turnEventsEnd(turnId)).endOffset;
      if (startOffset === undefined && options.afterSeq === 0) startOffset = 0;
      if (startOffset === undefined) {
        const start =
          options.afterSeq === 0 ? [] : await store.listTurnEvents(turnId, options.afterSeq - 1, 1);
        startOffset = start[0]?.seq === options.afterSeq ? start[0].endOffset : 0;
      }
      return Math.max(0, head - (deliveredOffset ?? startOffset ?? 0));
    },
    [Symbol.asyncIterator]() {
      return follower;
    },
  };
  return follower;
}
