/**
 * Test helper: whether this host gives sandboxes per-user shares (the server is root and each cgroup
 * v1 hierarchy is writable), and where a user's cgroup of one controller lies, so a test can look at
 * what the kernel counts, and removes the cgroups of the users it made up. Tests of a share skip with
 * the reason where it is not available.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/sandbox/sandbox-arguments.ts';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import { CGROUP_V1_ROOT } from '../../src/sandbox/user-cgroups.ts';
import { openUserShares } from '../../src/sandbox/user-shares.ts';

export type ShareController = 'pids' | 'memory' | 'cpu';

/** Why `controllers` cannot all be had here, or undefined when they can. */
export function sharesUnavailable(controllers: readonly ShareController[]): string | undefined {
  const shares = openUserShares({
    parentId: DEFAULT_SANDBOX_ID_RANGE.base,
    serverIsRoot: process.getuid?.() === 0,
    limits: DEFAULT_SANDBOX_LIMITS,
  });
  const opened = { pids: shares.processes, memory: shares.memory, cpu: shares.cpu };
  const reasons = controllers.flatMap((controller) => {
    const share = opened[controller];
    return typeof share === 'string' ? [`${controller}: ${share}`] : [];
  });
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

/** The cgroup of `userId` in `controller`'s hierarchy, for sandboxes of the default range. */
export function userCgroupOf(controller: ShareController, userId: string): string {
  const hash = createHash('sha256').update(userId).digest('hex').slice(0, 16);
  return join(CGROUP_V1_ROOT, controller, `mango-sandbox-${DEFAULT_SANDBOX_ID_RANGE.base}`, `user-${hash}`);
}

/**
 * User ids for one test file, unique per run, whose cgroups (in every controller, their sandboxes'
 * below them) the file removes when it is done: the server never removes a user's cgroup, a test
 * leaves none behind.
 */
export function testUsers(): { id(name: string): string; remove(): void } {
  const made: string[] = [];
  return {
    id(name) {
      const id = `${name}-${crypto.randomUUID()}`;
      made.push(id);
      return id;
    },
    remove: () => removeUserCgroups(made),
  };
}

/** Removes the cgroups of `userIds` in every controller, their sandboxes' below them, once empty. */
export function removeUserCgroups(userIds: readonly string[]): void {
  for (const id of userIds) {
    for (const controller of ['pids', 'memory', 'cpu'] as const) {
      const directory = userCgroupOf(controller, id);
      if (!existsSync(directory)) continue;
      for (const child of readdirSync(directory)) {
        if (child.startsWith('sandbox-')) rmdirIfEmpty(join(directory, child));
      }
      rmdirIfEmpty(directory);
    }
  }
}

function rmdirIfEmpty(directory: string): void {
  try {
    rmdirSync(directory);
  } catch {
    // Still holding a process: the kernel refuses, and the test that left it fails on its own.
  }
}
