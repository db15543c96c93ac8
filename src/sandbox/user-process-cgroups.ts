/**
 * One process limit per Mango user, where the host lets the server make pids cgroups. Each user's uid
 * has its own `RLIMIT_NPROC`, but that counts processes of the uid only; a pids cgroup per user bounds
 * everything a user's sandboxes run (their commands and stdio MCP servers together), counted by the
 * kernel from the moment the sandbox is admitted, below that ceiling.
 *
 * Guarantees:
 * - Used only on a cgroup v1 `pids` hierarchy the server can write (it runs as root); otherwise
 *   `openUserProcessCgroups` returns why not, and the uid's limit is all there is (the start-up line
 *   says so).
 * - One cgroup per user under `<root>/mango-sandbox-<id>/` (user-cgroups.ts), with `pids.max` set to
 *   the limit.
 * - `admit` moves a sandbox's PID 1 into its user's cgroup before the sandbox is handed its command:
 *   the waiter starts nothing before that (sandbox-waiter.ts), so every process of the command is
 *   counted, with no window. A failure throws; the caller then runs nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUP_V1_ROOT, openUserCgroups } from './user-cgroups.ts';

/** Where Debian-family hosts with cgroup v1 mount the pids controller. */
export const PIDS_CGROUP_ROOT = `${CGROUP_V1_ROOT}/pids`;

export interface UserProcessCgroups {
  /** Processes one user's sandboxes may have at once. */
  readonly limit: number;
  /**
   * Moves `pid` into the cgroup of `userId` (made on first use); a pid that is gone already is left
   * alone. Throws what the cgroup file system says otherwise.
   */
  admit(userId: string, pid: number): void;
  /**
   * Whether the cgroup of `userId` holds as many processes as its limit allows now (`pids.current` at
   * `pids.max`): a fork of theirs fails, a file worker's thread included. False when it cannot tell.
   */
  atLimit(userId: string): boolean;
  /**
   * How many forks (threads included) the limit has refused in the cgroup of `userId` so far (the
   * `max` count of `pids.events`); 0 when it cannot tell.
   */
  refusals(userId: string): number;
}

/** The per-user cgroups under `root`, or the reason they cannot be had. */
export function openUserProcessCgroups(
  parentId: number,
  limit: number,
  root: string = PIDS_CGROUP_ROOT,
): UserProcessCgroups | string {
  const cgroups = openUserCgroups({
    root,
    parentId,
    controllerFile: 'pids.max',
    settings: [['pids.max', String(limit)]],
  });
  if (typeof cgroups === 'string') return cgroups;
  return {
    limit,
    admit: cgroups.admit,
    atLimit(userId) {
      try {
        const directory = cgroups.directoryOf(userId);
        const current = Number(readFileSync(join(directory, 'pids.current'), 'utf8'));
        const max = Number(readFileSync(join(directory, 'pids.max'), 'utf8'));
        return Number.isFinite(current) && Number.isFinite(max) && current >= max;
      } catch {
        return false;
      }
    },
    refusals(userId) {
      try {
        const events = readFileSync(join(cgroups.directoryOf(userId), 'pids.events'), 'utf8');
        const count = Number(/^max (\d+)$/m.exec(events)?.[1]);
        return Number.isSafeInteger(count) ? count : 0;
      } catch {
        return 0;
      }
    },
  };
}
