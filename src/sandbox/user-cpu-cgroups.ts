/**
 * An equal CPU share per Mango user, where the host lets the server make cpu cgroups. The scheduler
 * divides CPU time between the cgroups of one parent by weight, not between their processes: a user
 * who runs a loop on every core gets one user's share when others want the CPU too, however many
 * processes they start, and all of it when nobody else does.
 *
 * Guarantees:
 * - Used only on a cgroup v1 `cpu` hierarchy the server can write; otherwise `openUserCpuCgroups`
 *   returns why not, and the scheduler divides time between processes (a user with more of them gets
 *   more).
 * - One cgroup per user under `<root>/mango-sandbox-<id>/` (user-cgroups.ts), `cpu.shares` 1024 each.
 *   The parent keeps the default weight and no quota: all sandboxes together weigh as much as any
 *   other cgroup at the top (a systemd service's) or any process there (the server's own, when it runs
 *   in the root cgroup), so the server keeps its share when sandboxes are busy, and cores nobody else
 *   wants are not left idle.
 * - `admit` moves a sandbox's PID 1 into its user's cgroup before it runs anything, so every process
 *   of the command is scheduled there.
 */
import { CGROUP_V1_ROOT, openUserCgroups } from './user-cgroups.ts';

/** Where Debian-family hosts with cgroup v1 mount the cpu controller. */
export const CPU_CGROUP_ROOT = `${CGROUP_V1_ROOT}/cpu`;

/** Each user's weight: the kernel's default, so every user weighs the same. */
export const USER_CPU_SHARES = 1024;

export interface UserCpuCgroups {
  /** Moves `pid` into the cgroup of `userId` (made on first use). */
  admit(userId: string, pid: number): void;
}

/** The per-user cpu cgroups under `root`, or the reason they cannot be had. */
export function openUserCpuCgroups(
  parentId: number,
  root: string = CPU_CGROUP_ROOT,
): UserCpuCgroups | string {
  const cgroups = openUserCgroups({
    root,
    parentId,
    controllerFile: 'cpu.shares',
    settings: [['cpu.shares', String(USER_CPU_SHARES)]],
  });
  if (typeof cgroups === 'string') return cgroups;
  return { admit: cgroups.admit };
}
