/**
 * One cgroup per Mango user in one cgroup v1 controller hierarchy (pids, memory, cpu), the mechanics
 * the per-user shares have in common (user-process-cgroups.ts, user-memory-cgroups.ts,
 * user-cpu-cgroups.ts).
 *
 * Guarantees:
 * - Used only where `<root>/cgroup.procs` exists and the server can make `<root>/mango-sandbox-<id>`
 *   holding the controller's own file; otherwise `openUserCgroups` returns why not.
 * - A user's cgroup is `<parent>/user-<hash>`, named after a hash of the user id (ids never reach the
 *   file system), configured by writing the controller's settings in order. Shared by every server
 *   process of the host and never removed by one (another may be admitting into it at that moment): an
 *   empty cgroup costs nothing, and one removed from outside is made and configured again.
 * - A sandbox's own cgroup (`admitToChild`) is a child of its user's, named after this server process
 *   (`sandbox-<pid>-<random>`), so no other process ever takes or removes it; `removeWhenEmpty` removes
 *   it once its processes are gone. Children left by a server process that no longer exists (killed
 *   during a call) are removed when a user's cgroup is first prepared by a later one.
 * - A process that is gone already is left alone (its sandbox failed to build; its exit status says
 *   why); every other failure throws what the cgroup file system said, and the caller runs nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorCodeOf } from '../descriptors/system-call-error.ts';

/** Where Debian-family hosts with cgroup v1 mount one directory per controller. */
export const CGROUP_V1_ROOT = '/sys/fs/cgroup';

export interface UserCgroupSpec {
  /** The controller's hierarchy, e.g. `/sys/fs/cgroup/memory`. */
  root: string;
  /** The parent's id: the sandbox range's base, or the one uid every call runs as. */
  parentId: number;
  /** A file only this controller's cgroups have (`pids.max`): proves the hierarchy is the right one. */
  controllerFile: string;
  /** Written to each user's cgroup, in this order, when it is made. */
  settings: readonly (readonly [file: string, value: string])[];
  /** Prepares the parent once it exists; returns why it cannot be used, or undefined. */
  prepareParent?: (parent: string) => string | undefined;
}

export interface UserCgroups {
  /** `<root>/mango-sandbox-<id>`. */
  readonly parent: string;
  /** The cgroup of `userId` (made on first admission). */
  directoryOf(userId: string): string;
  /** Moves `pid` into the cgroup of `userId`. */
  admit(userId: string, pid: number): void;
  /** Makes a cgroup of its own for one sandbox under the cgroup of `userId`, moves `pid` in, returns it. */
  admitToChild(userId: string, pid: number): string;
}

function makeDirectory(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if (errorCodeOf(error) !== 'EEXIST') throw error;
  }
}

/** Moves `pid` into `directory`; a pid that is gone already is left alone. */
function enter(directory: string, pid: number): void {
  try {
    writeFileSync(join(directory, 'cgroup.procs'), String(pid));
  } catch (error) {
    // A sandbox that already ended (bubblewrap could not build it) has nothing left to limit; its
    // exit status and message are the call's result.
    if (errorCodeOf(error) !== 'ESRCH') throw error;
  }
}

const CHILD_PREFIX = 'sandbox-';
/** A sandbox's cgroup: `sandbox-<pid of the server process that made it>-<random hex>`. */
const CHILD_NAME = new RegExp(`^${CHILD_PREFIX}(\\d+)-[0-9a-f]+$`);

/** True while a process `pid` exists (a server process that may still use its children). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCodeOf(error) !== 'ESRCH';
  }
}

/** Removes the sandbox cgroups under `directory` whose server process is gone (they are empty). */
function removeOrphanedChildren(directory: string): void {
  for (const name of readdirSync(directory)) {
    const owner = CHILD_NAME.exec(name);
    if (!owner || Number(owner[1]) === process.pid || processExists(Number(owner[1]))) continue;
    try {
      rmdirSync(join(directory, name));
    } catch {
      // Still holding a process (it outlived its server), or removed meanwhile: left as it is.
    }
  }
}

/** The per-user cgroups of `spec`, or the reason they cannot be had. */
export function openUserCgroups(spec: UserCgroupSpec): UserCgroups | string {
  const { root } = spec;
  if (!existsSync(join(root, 'cgroup.procs'))) return `${root} is not a cgroup hierarchy on this host`;
  const parent = join(root, `mango-sandbox-${spec.parentId}`);
  try {
    makeDirectory(parent);
  } catch (error) {
    return `${parent} cannot be created (${(error as Error).message})`;
  }
  if (!existsSync(join(parent, spec.controllerFile))) {
    return `${root} is not a ${spec.controllerFile.split('.')[0]} cgroup hierarchy`;
  }
  const refusal = spec.prepareParent?.(parent);
  if (refusal) return refusal;
  const prepared = new Set<string>();
  const directoryOf = (userId: string) =>
    join(parent, `user-${createHash('sha256').update(userId).digest('hex').slice(0, 16)}`);
  const prepare = (directory: string) => {
    makeDirectory(directory);
    for (const [file, value] of spec.settings) writeFileSync(join(directory, file), value);
    if (!prepared.has(directory)) removeOrphanedChildren(directory);
    prepared.add(directory);
  };
  /** Runs `step` in the user's cgroup, made first; made again, once, when it was removed meanwhile. */
  const within = <T>(userId: string, step: (directory: string) => T): T => {
    const directory = directoryOf(userId);
    if (!prepared.has(directory)) prepare(directory);
    try {
      return step(directory);
    } catch (error) {
      if (errorCodeOf(error) !== 'ENOENT') throw error;
      // Removed meanwhile (by an operator, or a cleanup of empty cgroups).
      prepare(directory);
      return step(directory);
    }
  };
  return {
    parent,
    directoryOf,
    admit: (userId, pid) => within(userId, (directory) => enter(directory, pid)),
    admitToChild: (userId, pid) =>
      within(userId, (directory) => {
        const child = join(directory, `${CHILD_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
        mkdirSync(child);
        try {
          enter(child, pid);
        } catch (error) {
          removeWhenEmpty(child);
          throw error;
        }
        return child;
      }),
  };
}

/** How often, and how many times, a sandbox's cgroup still holding a process is tried again. */
const REMOVE_RETRY_MS = 250;
const REMOVE_TRIES = 40;

/**
 * Removes a sandbox's cgroup. Its processes are normally gone (the namespace ended); one that is still
 * exiting makes the kernel say EBUSY, and the removal is tried again a few times on a timer that keeps
 * no process alive. One still busy after that is left to the next server process's cleanup.
 */
export function removeWhenEmpty(directory: string, triesLeft = REMOVE_TRIES): void {
  try {
    rmdirSync(directory);
  } catch (error) {
    if (errorCodeOf(error) !== 'EBUSY' || triesLeft <= 1) return;
    setTimeout(() => removeWhenEmpty(directory, triesLeft - 1), REMOVE_RETRY_MS).unref();
  }
}
