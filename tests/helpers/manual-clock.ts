/**
 * A clock and turn timers the test moves by hand: `now()` (the wall clock leases are dated by) and the
 * monotonic clock advance together, and a timer fires only when `advance` passes its due time. Between
 * two timers every callback already queued (promise chains of the in-memory stores) runs, so a test sees
 * each renewal, poll and retry as its own step, in due order, without waiting for any of them.
 */
import type { TurnTimers } from '../../src/turns/turn-timers.ts';

interface ScheduledTimer {
  id: number;
  due: number;
  /** Set for an interval: it is due again this long after it fired. */
  every: number | undefined;
  callback: () => void;
}

/** Lets every callback already queued on the event loop run, and those they queue in turn. */
export async function settle(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round += 1) await new Promise((resolve) => setImmediate(resolve));
}

export function manualClock(startMilliseconds = Date.UTC(2026, 11, 1, 12, 0, 0)) {
  let elapsed = 0;
  let nextId = 1;
  const scheduled = new Map<number, ScheduledTimer>();

  const schedule = (callback: () => void, milliseconds: number, every: number | undefined) => {
    const id = nextId++;
    scheduled.set(id, { id, due: elapsed + Math.max(0, milliseconds), every, callback });
    return id;
  };
  const clear = (handle: unknown) => {
    if (typeof handle === 'number') scheduled.delete(handle);
  };
  const timers: TurnTimers = {
    monotonic: () => elapsed,
    setTimeout: (callback, milliseconds) => schedule(callback, milliseconds, undefined),
    clearTimeout: clear,
    setInterval: (callback, milliseconds) => schedule(callback, milliseconds, Math.max(1, milliseconds)),
    clearInterval: clear,
  };

  /** The earliest timer due at or before `until` (ties: the one set first). */
  const nextDue = (until: number) => {
    let first: ScheduledTimer | undefined;
    for (const timer of scheduled.values()) {
      if (timer.due <= until && (first === undefined || timer.due < first.due)) first = timer;
    }
    return first;
  };

  return {
    timers,
    /** The wall clock, in epoch milliseconds. */
    now: () => startMilliseconds + elapsed,
    /** Milliseconds since the clock started. */
    elapsed: () => elapsed,
    /** How many timers are set (intervals included). */
    pendingCount: () => scheduled.size,
    /** Moves time on by `milliseconds`, firing every timer that falls due on the way, in order. */
    async advance(milliseconds: number): Promise<void> {
      const until = elapsed + milliseconds;
      await settle();
      for (let timer = nextDue(until); timer !== undefined; timer = nextDue(until)) {
        // A timer due during a jump fires late, at the current time, as a real one would.
        elapsed = Math.max(elapsed, timer.due);
        if (timer.every === undefined) scheduled.delete(timer.id);
        else timer.due = elapsed + timer.every;
        timer.callback();
        await settle();
      }
      elapsed = until;
      await settle();
    },
    /**
     * Moves time on by `milliseconds` with no timer firing meanwhile, as for a process that was paused
     * (SIGSTOP) or whose event loop was blocked: the timers due meanwhile fire late, at the next advance.
     */
    jump(milliseconds: number): void {
      elapsed += milliseconds;
    },
  };
}

export type ManualClock = ReturnType<typeof manualClock>;
