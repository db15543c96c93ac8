/**
 * Elapsed time on the cards of running tool calls: each `[data-elapsed-for=CALL_ID]` element shows how
 * long its call has been running, counted from when this page first saw it run, and updated once a
 * second while any is shown. Cards may be rebuilt at will: the start is kept per call id. The clock is
 * injectable for tests.
 */

/** `0 s`, `42 s`, `3 min 05 s`. */
export function formatElapsed(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

export interface ElapsedTicker {
  /** Starts (or stops) ticking for the running-call elements currently inside `root`. */
  sync(): void;
}

export function createElapsedTicker(
  root: HTMLElement,
  now: () => number = () => performance.now(),
): ElapsedTicker {
  const started = new Map<string, number>();
  let interval: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    const elements = root.querySelectorAll<HTMLElement>('[data-elapsed-for]');
    if (elements.length === 0 || !root.isConnected) {
      if (interval !== undefined) clearInterval(interval);
      interval = undefined;
      return;
    }
    const time = now();
    for (const element of elements) {
      const id = element.dataset.elapsedFor!;
      if (!started.has(id)) started.set(id, time);
      const text = formatElapsed(time - started.get(id)!);
      if (element.textContent !== text) element.textContent = text;
    }
  };
  return {
    sync() {
      tick();
      if (interval === undefined && root.querySelector('[data-elapsed-for]'))
        interval = setInterval(tick, 1000);
    },
  };
}
