/**
 * A depth-first walk of a tree through held directory descriptors: each directory is listed through the
 * descriptor it was opened as, and a subdirectory is opened by its one name relative to that held parent
 * with links refused (src/descriptors/held-directory.ts). A directory swapped for a symlink between the
 * listing and the descent is not entered (the open fails and the walk moves on), so a walk that starts at
 * a real directory lists and reaches only what is below it, and an entry's real location is its held
 * directory's real path plus its name. Symlinks are yielded as entries, never followed.
 *
 * Order: the entries of a directory in name order, then its subdirectories depth-first in name order (the
 * order grep reports files in). At most one descriptor per level of depth is open; each entry's
 * `directory` is valid only until the walk moves on, and every descriptor is closed when the walk ends or
 * its consumer stops early.
 */
import type { Dirent } from 'node:fs';
import type { HeldDirectory } from '../../descriptors/held-directory.ts';

export type WalkEntryKind = 'file' | 'directory' | 'link' | 'other';

export interface WalkEntry {
  /** `/`-separated path below the walk's root. */
  relative: string;
  name: string;
  kind: WalkEntryKind;
  /** The held directory the entry was listed in (its path is the directory's real location). */
  directory: HeldDirectory;
}

export interface WalkTreeOptions {
  /** A name for which this returns true is neither yielded nor entered. */
  skipsName?: (name: string) => boolean;
  /** A directory entry (already yielded) for which this returns false is not entered. */
  descends?: (entry: WalkEntry) => boolean;
  /**
   * The root's own path below where the caller's walk began, which every `relative` then starts with
   * (a walk of one subtree of a larger walk, as glob's threads make); empty by default.
   */
  base?: string;
}

/** Whether the listing says the entry is a link: undefined when it gave no type (some filesystems). */
export function linkKindOf(entry: Dirent): boolean | undefined {
  if (entry.isSymbolicLink()) return true;
  const known =
    entry.isFile() ||
    entry.isDirectory() ||
    entry.isFIFO() ||
    entry.isSocket() ||
    entry.isCharacterDevice() ||
    entry.isBlockDevice();
  return known ? false : undefined;
}

/** An entry's kind from the listing, or from its own `fstatat` when the listing gave none. */
export function walkEntryKind(entry: Dirent, directory: HeldDirectory): WalkEntryKind | undefined {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'link';
  if (linkKindOf(entry) === false) return 'other';
  try {
    const stats = directory.statEntry(entry.name);
    if (stats.isFile()) return 'file';
    if (stats.isDirectory()) return 'directory';
    return stats.isSymbolicLink() ? 'link' : 'other';
  } catch {
    return undefined; // vanished since the listing
  }
}

function byName(left: Dirent, right: Dirent): number {
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

/**
 * The entries of one held directory as a walk yields them: in name order, without the names
 * `skipsName` skips or entries gone since the listing; `relativeDirectory` is the directory's own
 * path below the walk's start. An unreadable or vanished directory has none.
 */
export function listWalkEntries(
  directory: HeldDirectory,
  relativeDirectory: string,
  skipsName: ((name: string) => boolean) | undefined,
): WalkEntry[] {
  let dirents: Dirent[];
  try {
    dirents = directory.entriesSync();
  } catch {
    return []; // unreadable or vanished: nothing to walk there
  }
  dirents.sort(byName);
  const entries: WalkEntry[] = [];
  for (const dirent of dirents) {
    if (skipsName?.(dirent.name)) continue;
    const kind = walkEntryKind(dirent, directory);
    if (kind === undefined) continue;
    const relative = relativeDirectory === '' ? dirent.name : `${relativeDirectory}/${dirent.name}`;
    entries.push({ relative, name: dirent.name, kind, directory });
  }
  return entries;
}

interface Frame {
  directory: HeldDirectory;
  relative: string;
  subdirectories: string[];
  next: number;
}

/** Yields every entry below `root` (held by the caller, who closes it; the walk closes what it opens). */
export function* walkTree(root: HeldDirectory, options: WalkTreeOptions = {}): Generator<WalkEntry> {
  const stack: Frame[] = [];
  try {
    let directory: HeldDirectory | undefined = root;
    let relativeDirectory = options.base ?? '';
    while (directory !== undefined) {
      const frame: Frame = { directory, relative: relativeDirectory, subdirectories: [], next: 0 };
      stack.push(frame);
      for (const entry of listWalkEntries(directory, relativeDirectory, options.skipsName)) {
        yield entry;
        if (entry.kind === 'directory' && (options.descends?.(entry) ?? true))
          frame.subdirectories.push(entry.name);
      }
      directory = undefined;
      while (directory === undefined && stack.length > 0) {
        const top = stack[stack.length - 1]!;
        const name = top.subdirectories[top.next];
        if (name === undefined) {
          stack.pop();
          if (top.directory !== root) top.directory.close();
          continue;
        }
        top.next += 1;
        try {
          directory = top.directory.openDirectory(name, 'refuse');
          relativeDirectory = top.relative === '' ? name : `${top.relative}/${name}`;
        } catch {
          // Swapped for a link, replaced by a file or gone since the listing: not entered.
        }
      }
    }
  } finally {
    for (const frame of stack) if (frame.directory !== root) frame.directory.close();
  }
}
