/**
 * Waiting until a sandbox is really gone. The namespace is empty exactly when its PID 1 (the waiter,
 * sandbox-waiter.ts) has finished exiting, because an exiting PID 1 first kills and waits for every
 * other process in it. So the sandbox asks bubblewrap for that process's host pid (`--info-fd 4`) and,
 * after bubblewrap exited, waits until that pid is gone or a zombie. bubblewrap reaps its child before
 * it exits, so the first look normally decides; the wait stays as the proof, and for a bubblewrap
 * that was killed itself (a timeout kills the whole group at once). The wait is bounded: a kernel that
 * takes longer than {@link TEARDOWN_LIMIT_MS} is not waited for (the namespace still dies; the call
 * just stops watching). Between looks it yields to the event loop for the first {@link SPIN_MS} (a
 * namespace ends within a millisecond or so), then polls every {@link POLL_MS}: a timer-paced poll
 * alone cost every call a whole period.
 */
import { readFileSync } from 'node:fs';

export const TEARDOWN_LIMIT_MS = 2000;
const SPIN_MS = 5;
const POLL_MS = 2;

/** The host pid of the sandbox's PID 1 from bubblewrap's `--info-fd` JSON, or undefined. */
export function parseSandboxInitPid(written: string): number | undefined {
  const match = /"child-pid"\s*:\s*(\d+)/.exec(written);
  return match ? Number(match[1]) : undefined;
}

/** How the wait looks at a pid and lets time pass: the host's, or a test's own. */
export interface TeardownWatch {
  /** True while `pid` names a process that is not a zombie. */
  isLive(pid: number): boolean;
  /** A monotonic clock, in milliseconds. */
  now(): number;
  /** Resolves after `milliseconds` (0: once the event loop has run what was queued). */
  pause(milliseconds: number): Promise<void>;
}

/** True while `pid` names a process that is not a zombie (a procfs read: no disk, no blocking). */
function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** The host's procfs, clock and timers. */
export const HOST_TEARDOWN_WATCH: TeardownWatch = {
  isLive,
  now: () => performance.now(),
  pause: (milliseconds) => Bun.sleep(milliseconds),
};

/** Resolves once the sandbox whose info is `written` has no process left (or the limit passed). */
export async function waitForSandboxTeardown(
  written: string,
  limitMs = TEARDOWN_LIMIT_MS,
  watch: TeardownWatch = HOST_TEARDOWN_WATCH,
): Promise<void> {
  const pid = parseSandboxInitPid(written);
  if (pid === undefined) return;
  const startedAt = watch.now();
  while (watch.isLive(pid)) {
    const waited = watch.now() - startedAt;
    if (waited >= limitMs) return;
    await watch.pause(waited < SPIN_MS ? 0 : POLL_MS);
  }
}
