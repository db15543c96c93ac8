/**
 * The timers and the monotonic clock a turn's lifecycle waits on: lease renewals, cancel polls, write
 * and end-record retries, follower polls, the cancel confirmation window. The wall clock (`now`) dates
 * leases and records and is injected on its own; this one measures real elapsed time, which is what
 * bounds a hanging write or detects a paused process. Injected so that a test drives every one of
 * these waits by hand instead of sleeping; the default is the runtime's own.
 */
export interface TurnTimers {
  /** Milliseconds on a monotonic clock (`performance.now()` by default). */
  monotonic(): number;
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(callback: () => void, milliseconds: number): unknown;
  clearInterval(handle: unknown): void;
}

export const REAL_TURN_TIMERS: TurnTimers = {
  monotonic: () => performance.now(),
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
  setInterval: (callback, milliseconds) => setInterval(callback, milliseconds),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/** Resolves after `milliseconds` on `timers`. */
export function sleepOn(timers: TurnTimers, milliseconds: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, milliseconds);
  });
}
