/**
 * One process limit per Mango user, where the host lets the server make pids cgroups. All users'
 * commands run as one sandbox uid, so its `RLIMIT_NPROC` is shared: one user's fork loop could take
 * every process slot and make another user's command fail to start. A pids cgroup per user bounds each
 * user's commands (all their sandboxes together) below that shared ceiling.
 *
 * Guarantees:
 * - Used only on a cgroup v1 `pids` hierarchy the server can write (it runs as root); otherwise
 *   `openUserProcessCgroups` returns why not, and the shared limit is all there is (the start-up line
 *   says so).
 * - One cgroup per user under `<root>/mango-sandbox-<uid>/`, named after a hash of the user id (ids
 *   never reach the file system), with `pids.max` set to the limit. Shared by every server process of
 *   the host, and never removed by one (another may be admitting into it at that moment): an empty
 *   cgroup costs nothing, and one removed from outside is made again.
 * - `admit` moves a sandbox's PID 1 into its user's cgroup before the sandbox is handed its command:
 *   the waiter starts nothing before that (sandbox-waiter.ts), so every process of the command is
 *   counted, with no window. A failure throws; the caller then runs nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where Debian-family hosts with cgroup v1 mount the pids controller. */
export const PIDS_CGROUP_ROOT = '/sys/fs/cgroup/pids';

export interface UserProcessCgroups {
  /** Processes one user's commands may have at once. */
  readonly limit: number;
  /**
   * Moves `pid` into the cgroup of `userId` (made on first use); a pid that is gone already is left
   * alone. Throws what the cgroup file system says otherwise.
   */
  admit(userId: string, pid: number): void;
}

function makeDirectory(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
}

/** The per-user cgroups under `root`, or the reason they cannot be had. */
export function openUserProcessCgroups(
  uid: number,
  limit: number,
  root: string = PIDS_CGROUP_ROOT,
): UserProcessCgroups | string {
  if (!existsSync(join(root, 'cgroup.procs'))) return `${root} is not a cgroup hierarchy on this host`;
  const parent = join(root, `mango-sandbox-${uid}`);
  try {
    makeDirectory(parent);
  } catch (error) {
    return `${parent} cannot be created (${(error as Error).message})`;
  }
  if (!existsSync(join(parent, 'pids.max'))) return `${root} is not a pids cgroup hierarchy`;
  const prepared = new Set<string>();
  const prepare = (directory: string) => {
    makeDirectory(directory);
    writeFileSync(join(directory, 'pids.max'), String(limit));
    prepared.add(directory);
  };
  return {
    limit,
    admit(userId: string, pid: number): void {
      const directory = join(
        parent,
        `user-${createHash('sha256').update(userId).digest('hex').slice(0, 16)}`,
      );
      if (!prepared.has(directory)) prepare(directory);
      const enter = () => writeFileSync(join(directory, 'cgroup.procs'), String(pid));
      try {
        try {
          enter();
        } catch (error) {
          if ((error as { code?: string }).code !== 'ENOENT') throw error;
          // Removed meanwhile (by an operator, or a cleanup of empty cgroups): made again, once.
          prepare(directory);
          enter();
        }
      } catch (error) {
        // A sandbox that already ended (bubblewrap could not build it) has nothing left to limit;
        // its exit status and message are the call's result.
        if ((error as { code?: string }).code !== 'ESRCH') throw error;
      }
    },
  };
}
