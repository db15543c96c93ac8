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

/** True while `pid` names a process that is not a zombie (a procfs read: no disk, no blocking). */
function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Resolves once the sandbox whose info is `written` has no process left (or the limit passed). */
export async function waitForSandboxTeardown(written: string, limitMs = TEARDOWN_LIMIT_MS): Promise<void> {
  const pid = parseSandboxInitPid(written);
  if (pid === undefined) return;
  const startedAt = performance.now();
  while (isLive(pid)) {
    const waited = performance.now() - startedAt;
    if (waited >= limitMs) return;
    await Bun.sleep(waited < SPIN_MS ? 0 : POLL_MS);
  }
}
