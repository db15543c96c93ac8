/**
 * The per-candidate check of a listing (glob, list_directory): a candidate is reported only when its real
 * location is admitted by the call's access policy, whatever spelling produced it (`a/../../x/*`,
 * `./../x/*`, an absolute pattern, a literal segment that is a symlink to a directory outside). The real
 * location of an entry is its parent directory's real path plus its name; for a symlink entry it is the
 * link's target, so a link pointing outside is left out as well. Parent directories are resolved, and
 * listed for their entries' kinds, once per walk. A name reported this way lies inside the set; what is
 * later opened under it is verified again on its descriptor. Everything here is synchronous: a walk must not interleave its checks with other work on the
 * same candidate.
 */
import { type Dirent, lstatSync, readdirSync, realpathSync } from 'node:fs';
import type { AccessPolicy } from './access-policy.ts';

export interface WalkGate {
  /** True when the entry at lexical absolute path `absolute` may be reported. */
  admits(absolute: string): boolean;
  /** Candidates refused so far (reported as a count, never by name). */
  readonly refused: number;
}

/** How an entry's kind is known: from its directory's listing, or (`unknown`) only by asking lstat. */
type EntryKind = 'link' | 'other' | 'unknown';

function kindOf(entry: Dirent): EntryKind {
  if (entry.isSymbolicLink()) return 'link';
  const known =
    entry.isFile() ||
    entry.isDirectory() ||
    entry.isFIFO() ||
    entry.isSocket() ||
    entry.isCharacterDevice() ||
    entry.isBlockDevice();
  return known ? 'other' : 'unknown';
}

export function createWalkGate(policy: AccessPolicy): WalkGate {
  const realDirectories = new Map<string, string | null>();
  /** Per real directory, the kind of each entry: one readdir per directory instead of one lstat per entry. */
  const listings = new Map<string, Map<string, EntryKind>>();
  const realDirectory = (directory: string): string | null => {
    let real = realDirectories.get(directory);
    if (real === undefined) {
      try {
        real = realpathSync(directory);
      } catch {
        real = null; // vanished or unreadable: nothing below it can be vouched for
      }
      realDirectories.set(directory, real);
    }
    return real;
  };
  const isLink = (parentReal: string, name: string, entryReal: string): boolean => {
    let listing = listings.get(parentReal);
    if (listing === undefined) {
      listing = new Map();
      try {
        for (const entry of readdirSync(parentReal, { withFileTypes: true }))
          listing.set(entry.name, kindOf(entry));
      } catch {
        // Unlistable: every entry is asked about on its own below.
      }
      listings.set(parentReal, listing);
    }
    const kind = listing.get(name) ?? 'unknown';
    if (kind !== 'unknown') return kind === 'link';
    return lstatSync(entryReal).isSymbolicLink();
  };
  let refused = 0;
  const decide = (absolute: string): boolean => {
    // `absolute` is normalised, so its last `/` separates the parent from the name (node:path's helpers
    // cost more than the policy check itself here).
    const slash = absolute.lastIndexOf('/');
    if (slash < 0 || absolute.length === 1) return policy.admits(absolute);
    const parentReal = realDirectory(slash === 0 ? '/' : absolute.slice(0, slash));
    if (parentReal === null) return false;
    const name = absolute.slice(slash + 1);
    const entryReal = parentReal === '/' ? `/${name}` : `${parentReal}/${name}`;
    if (!policy.admits(entryReal)) return false;
    try {
      if (!isLink(parentReal, name, entryReal)) return true;
      return policy.admits(realpathSync(entryReal));
    } catch {
      return false; // vanished, or a dangling or looping link: nothing behind it can be reached
    }
  };
  return {
    admits(absolute) {
      const admitted = decide(absolute);
      if (!admitted) refused += 1;
      return admitted;
    },
    get refused() {
      return refused;
    },
  };
}
