/** Timers the test fires by hand, so a budget is tested without waiting for it. */
import type { ToolTimers } from '../../src/tools/execution.ts';

export interface ManualTimer {
  callback: () => void;
  milliseconds: number;
  cleared: boolean;
}

export function manualTimers() {
  const pending: ManualTimer[] = [];
  const timers: ToolTimers = {
    setTimeout: (callback, milliseconds) => {
      const entry = { callback, milliseconds, cleared: false };
      pending.push(entry);
      return entry;
    },
    clearTimeout: (handle) => {
      (handle as ManualTimer).cleared = true;
    },
  };
  /** Fires every timer that has not been cleared. */
  const fireAll = () => {
    for (const entry of pending) if (!entry.cleared) entry.callback();
  };
  return { timers, pending, fireAll };
}
