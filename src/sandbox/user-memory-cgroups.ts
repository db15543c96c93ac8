/**
 * One memory share per Mango user, where the host lets the server make memory cgroups: everything a
 * user's sandboxes hold at once (their processes' memory and what they write to their tmpfs mounts,
 * commands and stdio MCP servers together) is bounded by one limit, so one tenant's hog cannot take
 * the host's memory from another. The kernel's OOM killer ends a process of the user who went over;
 * other users' sandboxes are not touched.
 *
 * Guarantees:
 * - Used only on a cgroup v1 `memory` hierarchy the server can write, whose cgroups count OOM kills
 *   (`memory.oom_control` has `oom_kill`, Linux 4.13 and later); otherwise `openUserMemoryCgroups`
 *   returns why not, and only the per-process address-space limit and the tmpfs sizes bound a command.
 * - One cgroup per user under `<root>/mango-sandbox-<id>/` (user-cgroups.ts) with
 *   `memory.limit_in_bytes`, and `memory.memsw.limit_in_bytes` (memory and swap together) where the
 *   kernel accounts swap, set to the share: a share cannot be stretched into swap.
 * - Each sandbox gets a cgroup of its own under its user's (`admit`, before it runs anything), with no
 *   limit of its own: the user's share bounds them all. It tells whether the OOM killer ended one of
 *   that sandbox's processes (the kernel counts a kill in the cgroup of the process it killed), so when
 *   a user's share runs out the call whose process was killed is the one that says so, not the one that
 *   asked for the last page. It is removed when the sandbox ends (`release`).
 * - tmpfs pages are charged to the cgroup of the process that wrote them and freed when the sandbox's
 *   mount namespace ends.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CGROUP_V1_ROOT, openUserCgroups, removeWhenEmpty } from './user-cgroups.ts';

/** Where Debian-family hosts with cgroup v1 mount the memory controller. */
export const MEMORY_CGROUP_ROOT = `${CGROUP_V1_ROOT}/memory`;

/** One sandbox's memory cgroup. */
export interface SandboxMemory {
  /** True once the OOM killer ended a process of this sandbox; read when the sandbox has ended. */
  killed(): boolean;
  /** Removes the sandbox's cgroup; call once its processes are gone. */
  release(): void;
}

export interface UserMemoryCgroups {
  /** Bytes one user's sandboxes may hold at once. */
  readonly limitBytes: number;
  /** True when swap counts towards the share too (`memory.memsw`). */
  readonly swapCounted: boolean;
  /** Makes a cgroup for one sandbox under the cgroup of `userId` and moves `pid` into it. */
  admit(userId: string, pid: number): SandboxMemory;
}

/** The OOM kills counted in the cgroup at `directory` (0 when it is gone). */
function oomKills(directory: string): number {
  try {
    const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(directory, 'memory.oom_control'), 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** The per-user memory cgroups under `root`, limited to `limitBytes` each, or why they cannot be had. */
export function openUserMemoryCgroups(
  parentId: number,
  limitBytes: number,
  root: string = MEMORY_CGROUP_ROOT,
): UserMemoryCgroups | string {
  // The root has the control files every cgroup of the hierarchy has: the kernel accounts swap or not.
  const swapCounted = existsSync(join(root, 'memory.memsw.limit_in_bytes'));
  const limit = String(limitBytes);
  const cgroups = openUserCgroups({
    root,
    parentId,
    controllerFile: 'memory.limit_in_bytes',
    prepareParent(parent) {
      let control: string;
      try {
        control = readFileSync(join(parent, 'memory.oom_control'), 'utf8');
      } catch (error) {
        return `${parent}/memory.oom_control cannot be read (${(error as Error).message})`;
      }
      if (!/^oom_kill \d+$/m.test(control)) {
        return "this kernel's memory cgroups do not count OOM kills (Linux 4.13 or later does)";
      }
      // A user's limit must bound the sandboxes below it: hierarchical accounting, always on in recent
      // kernels, switched on here where it is not.
      const hierarchy = join(parent, 'memory.use_hierarchy');
      if (existsSync(hierarchy) && readFileSync(hierarchy, 'utf8').trim() !== '1') {
        try {
          writeFileSync(hierarchy, '1');
        } catch (error) {
          return `${hierarchy} cannot be switched on (${(error as Error).message})`;
        }
      }
      return undefined;
    },
    // The combined limit may never be below the memory limit: lifted first, then both set to the
    // share, so a share changed since the cgroup was made (up or down) is applied either way.
    settings: [
      ...(swapCounted ? [['memory.memsw.limit_in_bytes', '-1'] as const] : []),
      ['memory.limit_in_bytes', limit],
      ...(swapCounted ? [['memory.memsw.limit_in_bytes', limit] as const] : []),
    ],
  });
  if (typeof cgroups === 'string') return cgroups;
  return {
    limitBytes,
    swapCounted,
    admit(userId, pid) {
      const directory = cgroups.admitToChild(userId, pid);
      let released = false;
      return {
        killed: () => oomKills(directory) > 0,
        release() {
          if (released) return;
          released = true;
          removeWhenEmpty(directory);
        },
      };
    },
  };
}
