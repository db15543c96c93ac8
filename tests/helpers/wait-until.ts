/**
 * Waiting on a condition that another process, thread or the event loop makes true: polled every 20 ms
 * until it holds or the deadline passes, then checked once more. The deadline bounds a failure, never
 * the time a passing test takes, so it can be generous; a test never waits a fixed time for an event.
 */
const POLL_MS = 20;

/** Whether `condition` held within `timeoutMs` (its last value). */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await condition()) return true;
    await Bun.sleep(POLL_MS);
  }
  return condition();
}

/** Lets every callback already queued on the event loop (timers of 0 ms included) run first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
