/**
 * The directory a file is about to be written into, held open, with its missing ancestors created on
 * the way. The tenant may swap any directory of the path for a link meanwhile, so the walk never acts
 * by name outside a held directory:
 * - the deepest existing ancestor is opened from its real path with links refused on every component;
 * - each missing directory is made by `mkdirat` in the held one above it, then opened from there with
 *   links refused, and given to the owner through its own descriptor (`fchown`);
 * - `removeCreated` takes away only the directories this walk made (still empty, still the same
 *   inode), by `unlinkat` in their held parents, deepest first.
 * A link met anywhere fails the walk with `ELOOP`; nothing is created through it.
 */
import type { Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { errorCodeOf } from '../../descriptors/system-call-error.ts';

interface CreatedDirectory {
  parent: HeldDirectory;
  name: string;
  stats: Stats;
}

export interface HeldParentDirectory {
  /** The held directory the path named. */
  directory: HeldDirectory;
  /** Removes the directories the walk created (see the module comment); never throws. */
  removeCreated(): void;
  /** Closes every directory the walk held. */
  close(): void;
}

/** Opens the deepest existing ancestor of `directory` (a real path) and names the missing rest. */
function openDeepestAncestor(directory: string): { held: HeldDirectory; missing: string[] } {
  const missing: string[] = [];
  for (let current = directory; ; current = dirname(current)) {
    try {
      return { held: HeldDirectory.open(current), missing };
    } catch (error) {
      if (errorCodeOf(error) !== 'ENOENT' || dirname(current) === current) throw error;
      missing.unshift(basename(current));
    }
  }
}

/**
 * Holds `directory` (a real path), creating what is missing of it and giving each created directory
 * to `owner` when one is given. Throws the system error of the first step that failed, after removing
 * what it had created.
 */
export function holdParentDirectory(
  directory: string,
  owner: { uid: number; gid: number } | undefined,
): HeldParentDirectory {
  const deepest = openDeepestAncestor(directory);
  const held: HeldDirectory[] = [deepest.held];
  const created: CreatedDirectory[] = [];
  const close = () => {
    for (const entry of held) entry.close();
  };
  const removeCreated = () => {
    for (const { parent, name, stats } of created.toReversed()) {
      try {
        const now = parent.statEntry(name);
        if (now.ino === stats.ino && now.dev === stats.dev) parent.removeDirectory(name);
      } catch {
        // Not empty, gone or replaced by the tenant: only an empty directory the walk made is removed.
      }
    }
    created.length = 0;
  };
  try {
    let current = deepest.held;
    for (const name of deepest.missing) {
      let made = true;
      try {
        current.createDirectory(name);
      } catch (error) {
        // Made by someone else meanwhile: used like any existing directory, never removed.
        if (errorCodeOf(error) !== 'EEXIST') throw error;
        made = false;
      }
      const child = current.openDirectory(name);
      held.push(child);
      if (made) {
        created.push({ parent: current, name, stats: child.stat() });
        if (owner !== undefined) child.changeOwner(owner.uid, owner.gid);
      }
      current = child;
    }
    return { directory: current, removeCreated, close };
  } catch (error) {
    removeCreated();
    close();
    throw error;
  }
}
