/**
 * Gives one tree of the uid of earlier versions (`MANGO_SANDBOX_UID`) to its owners of today, by
 * descriptor: the walk `mango workspace migrate-owners` makes over each workspace, grant and MCP state
 * directory. What each entry gets is decided by legacy-owner-change.ts from the entry's own `fstat`.
 *
 * Guarantees:
 * - Nothing is followed. The root is opened with links refused on every component; each entry is held
 *   as itself (descriptors/held-entry.ts: `O_PATH | O_NOFOLLOW`), so a symlink is re-owned as the link
 *   and its target is never touched; a directory is entered by its one name with links refused, and
 *   only when it is the very object that was examined (same device and inode), else the walk stops
 *   with {@link TreeChangedError}. The owner and mode change on the held object, never by name.
 * - The walk stays on the root's filesystem: a directory on another one (a mount, a subvolume) is
 *   neither changed nor entered, and is reported.
 * - The root is changed last. Shell commands are refused in a root that still belongs to the legacy
 *   uid (unmigrated-roots.ts), so its user's commands cannot run in the tree while it is being
 *   changed, and an interrupted walk leaves it refused until a later run completes it.
 * - The mode changes before the owner: a setuid file is never owned by its new owner with the bit
 *   still set, not even between two calls.
 * - Every entry is examined before it is changed and changed only when the rule says so, so a second
 *   walk changes nothing, and a dry run (`dryRun`) reports exactly what a real one would do.
 */
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { HeldDirectory } from '../descriptors/held-directory.ts';
import { HeldEntry } from '../descriptors/held-entry.ts';
import { errorCodeOf } from '../descriptors/system-call-error.ts';
import { MangoError } from '../errors/mango-error.ts';
import {
  clearsSetuid,
  type EntryFacts,
  type EntryType,
  legacyOwnerChange,
  type OwnerRule,
} from './legacy-owner-change.ts';

export interface TreeToMigrate {
  /** Real path of the tree's root directory. */
  path: string;
  rule: OwnerRule;
  /** Real paths of directories below `path` that are not entered: trees of their own, with their own rule. */
  skip?: readonly string[];
}

/** An entry the walk did not give away, for the operator to resolve. */
export interface LeftEntry {
  path: string;
  reason: 'hard link' | 'device' | 'another filesystem';
  /** `st_nlink` of a hard-linked entry. */
  links?: number;
}

/** One entry changed (or, in a dry run, to be changed): owner and mode before and after. */
export interface ChangedEntry {
  path: string;
  from: { uid: number; gid: number; mode: number };
  to: { uid: number; gid: number; mode: number };
}

export interface TreeMigration {
  /** Entries given to the rule's owner. */
  reowned: number;
  /** Regular files whose setuid or setgid bit was cleared. */
  setuidCleared: number;
  /** In walk order. */
  left: LeftEntry[];
}

export interface MigrateTreeOptions {
  /** Decide and report everything, change nothing. */
  dryRun: boolean;
  /** Told about each change, in walk order (depth first by name: a directory before its entries, the root last). */
  onChange?: (change: ChangedEntry) => void;
  /**
   * `dev:ino` of the multiply linked files this run already changed the mode of, shared by every tree
   * of one run: a file met again under another name is not changed (nor counted) again, in a dry run
   * as in a real one.
   */
  changedLinks?: Set<string>;
}

/** The tree changed under the walk (an entry was swapped between being examined and entered). */
export class TreeChangedError extends MangoError {
  override name = 'TreeChangedError';
  constructor(path: string) {
    super(
      'tree_changed_during_migration',
      `${path} changed while its owners were being migrated (replaced, moved or swapped for a link); nothing of it was changed since. Stop whatever changes it and run the command again.`,
    );
  }
}

/** The tree's root is a link, lies below one, or is no directory: it is not walked at all. */
export class TreeRootError extends MangoError {
  override name = 'TreeRootError';
  constructor(path: string, reason: string) {
    super(
      'tree_root_not_a_directory',
      `${path} is not a directory reached without links (${reason}): links are never followed, so nothing of it was changed.`,
    );
  }
}

/** What owner and mode changes act on: a held directory or a held entry. */
interface ChangeTarget {
  changeMode(mode: number): void;
  changeOwner(uid: number, gid: number): void;
}

function typeOf(stats: Stats): EntryType {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return 'device';
  return 'other';
}

function factsOf(stats: Stats): EntryFacts {
  return {
    type: typeOf(stats),
    uid: stats.uid,
    gid: stats.gid,
    mode: stats.mode & 0o7777,
    links: stats.nlink,
  };
}

/** The names in `directory`, in code-unit order (the output's order); none when it vanished. */
function namesIn(directory: HeldDirectory): string[] {
  try {
    return directory
      .entriesSync()
      .map((entry) => entry.name)
      .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0));
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return [];
    throw error;
  }
}

/** Opens the directory `name` of `parent`, refusing anything but the object `examined` described. */
function enterExamined(parent: HeldDirectory, name: string, examined: Stats, path: string): HeldDirectory {
  let directory: HeldDirectory;
  try {
    directory = parent.openDirectory(name, 'refuse');
  } catch (error) {
    const code = errorCodeOf(error);
    if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'ENOENT') throw new TreeChangedError(path);
    throw error;
  }
  const opened = directory.stat();
  if (opened.dev !== examined.dev || opened.ino !== examined.ino) {
    directory.close();
    throw new TreeChangedError(path);
  }
  return directory;
}

interface Frame {
  directory: HeldDirectory;
  names: string[];
  next: number;
}

/** Migrates `tree` (see the module header). Throws what a call throws, naming the path. */
/** The tree's root, held; a root that is a link or no directory is refused, naming it. */
function openTreeRoot(path: string): HeldDirectory {
  try {
    return HeldDirectory.open(path);
  } catch (error) {
    const code = errorCodeOf(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') throw new TreeRootError(path, code);
    throw error;
  }
}

/**
 * Decides one entry's change (legacyOwnerChange), counts it in the result, reports it, and makes it
 * unless this is a dry run. A hard-linked inode has its mode changed once, however many names it has.
 */
function applyChange(
  target: ChangeTarget,
  stats: Stats,
  path: string,
  treeRoot: boolean,
  context: {
    tree: TreeToMigrate;
    options: MigrateTreeOptions;
    result: TreeMigration;
    changedLinks: Set<string>;
  },
): void {
  const { tree, options, result, changedLinks } = context;
  const facts = factsOf(stats);
  let change = legacyOwnerChange(facts, tree.rule, treeRoot);
  if (change.action === 'keep') return;
  if (change.action === 'leave' && change.mode !== undefined) {
    const inode = `${stats.dev}:${stats.ino}`;
    if (changedLinks.has(inode)) change = { action: 'leave', reason: change.reason };
    else changedLinks.add(inode);
  }
  if (change.action === 'leave') {
    result.left.push(
      change.reason === 'hard link'
        ? { path, reason: change.reason, links: facts.links }
        : { path, reason: change.reason },
    );
  } else {
    result.reowned += 1;
  }
  if (clearsSetuid(facts, change)) result.setuidCleared += 1;
  const to = {
    uid: change.action === 'give' ? change.uid : facts.uid,
    gid: change.action === 'give' ? change.gid : facts.gid,
    mode: change.mode ?? facts.mode,
  };
  if (to.uid === facts.uid && to.gid === facts.gid && to.mode === facts.mode) return;
  options.onChange?.({ path, from: { uid: facts.uid, gid: facts.gid, mode: facts.mode }, to });
  if (options.dryRun) return;
  if (change.mode !== undefined) target.changeMode(change.mode);
  if (change.action === 'give') target.changeOwner(change.uid, change.gid);
}

export function migrateTreeOwners(tree: TreeToMigrate, options: MigrateTreeOptions): TreeMigration {
  const result: TreeMigration = { reowned: 0, setuidCleared: 0, left: [] };
  const skipped = new Set(tree.skip ?? []);
  const changedLinks = options.changedLinks ?? new Set<string>();

  const apply = (target: ChangeTarget, stats: Stats, path: string, treeRoot: boolean): void =>
    applyChange(target, stats, path, treeRoot, { tree, options, result, changedLinks });

  const root = openTreeRoot(tree.path);
  const stack: Frame[] = [];
  try {
    const device = root.stat().dev;
    stack.push({ directory: root, names: namesIn(root), next: 0 });
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const name = frame.names[frame.next];
      if (name === undefined) {
        stack.pop();
        if (frame.directory !== root) frame.directory.close();
        continue;
      }
      frame.next += 1;
      const path = join(frame.directory.path, name);
      if (skipped.has(path)) continue;
      let entry: HeldEntry;
      try {
        entry = HeldEntry.open(frame.directory, name);
      } catch (error) {
        if (errorCodeOf(error) === 'ENOENT') continue; // removed since the listing: nothing left to give
        throw error;
      }
      let examined: Stats;
      try {
        examined = entry.stat();
        if (!examined.isDirectory()) {
          apply(entry, examined, path, false);
          continue;
        }
      } finally {
        entry.close();
      }
      if (examined.dev !== device) {
        result.left.push({ path, reason: 'another filesystem' });
        continue;
      }
      const directory = enterExamined(frame.directory, name, examined, path);
      stack.push({ directory, names: [], next: 0 });
      apply(directory, examined, path, false);
      stack[stack.length - 1]!.names = namesIn(directory);
    }
    apply(root, root.stat(), tree.path, true);
    return result;
  } finally {
    for (const frame of stack) if (frame.directory !== root) frame.directory.close();
    root.close();
  }
}
