/**
 * The per-candidate check of a listing (glob, list_directory): a candidate is reported only when its real
 * location is admitted by the call's access policy, whatever spelling produced it (`a/../../x/*`,
 * `./../x/*`, an absolute pattern, a literal segment that is a symlink to a directory outside). The real
 * location of an entry is its parent directory's real path plus its name; for a symlink entry it is the
 * link's target, so a link pointing outside is left out as well. Parent directories are resolved once per
 * walk. Everything here is synchronous: a walk must not interleave its checks with other work on the
 * same candidate.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { AccessPolicy } from './access-policy.ts';

export interface WalkGate {
  /** True when the entry at lexical absolute path `absolute` may be reported. */
  admits(absolute: string): boolean;
  /** Candidates refused so far (reported as a count, never by name). */
  readonly refused: number;
}

export function createWalkGate(policy: AccessPolicy): WalkGate {
  const realDirectories = new Map<string, string | null>();
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
  let refused = 0;
  const decide = (absolute: string): boolean => {
    const parent = dirname(absolute);
    if (parent === absolute) return policy.admits(absolute);
    const parentReal = realDirectory(parent);
    if (parentReal === null) return false;
    const entryReal = join(parentReal, basename(absolute));
    if (!policy.admits(entryReal)) return false;
    let isLink: boolean;
    try {
      isLink = lstatSync(entryReal).isSymbolicLink();
    } catch {
      return false;
    }
    if (!isLink) return true;
    try {
      return policy.admits(realpathSync(entryReal));
    } catch {
      return false; // a dangling or looping link: nothing behind it can be reached; keep it out
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
