/**
 * Waiting on what another process, thread or the event loop does, never a fixed time:
 * - `waitUntil` polls a condition until it holds or the deadline passes, then checks it once more. The
 *   deadline bounds a failure, never the time a passing test takes, so it can be generous.
 * - `holdsFor` is the one wait that takes its whole time: a test that asserts something did not happen
 *   (a process still running, a stream not cut) watches it for that long, and fails as soon as it breaks.
 * These polls are the only timed waits of the tests; a fixture's own pause says so (`// fixture: …`),
 * and tests/docs/no-fixed-sleeps.test.ts holds every other file to that.
 */
const POLL_MS = 20;

/** Whether `condition` held within `timeoutMs` (its last value), looked at every `pollMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  pollMs = POLL_MS,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await condition()) return true;
    await Bun.sleep(pollMs);
  }
  return condition();
}

/**
 * Whether `condition` held at every look for `durationMs` (the first at once, the last at the end):
 * false at the first look where it did not.
 */
export async function holdsFor(
  condition: () => boolean | Promise<boolean>,
  durationMs: number,
): Promise<boolean> {
  const deadline = performance.now() + durationMs;
  for (;;) {
    if (!(await condition())) return false;
    const left = deadline - performance.now();
    if (left <= 0) return true;
    await Bun.sleep(Math.min(POLL_MS, left));
  }
}

/** Lets every callback already queued on the event loop (timers of 0 ms included) run first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
