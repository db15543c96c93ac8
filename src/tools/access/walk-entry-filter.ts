/**
 * The per-entry check of a listing (glob, list_directory): an entry is reported only when its real
 * location is admitted by the call's access policy. Listings are made through held directories opened at
 * real locations with links refused (src/descriptors/held-directory.ts), so an entry's real location is
 * its directory's real path plus its name, with no name resolved again. For a symlink entry the link's
 * target is judged as well (read through the held directory, then resolved): a link pointing outside is
 * left out. In a directory whose every descendant the policy admits (`admitsEveryDescendant`, asked once
 * a directory), an entry that is no link is admitted as it is listed. A name reported this way lies
 * inside the set; what is later opened under it is opened at its
 * real location with links refused. Everything here is synchronous: a walk must not interleave its checks
 * with other work on the same candidate.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { HeldDirectory } from '../../descriptors/held-directory.ts';
import type { AccessPolicy } from './access-policy.ts';

export interface WalkEntryFilter {
  /**
   * True when entry `name` of `directory` (held at the real location `directory.path`) may be reported.
   * `isLink` is the entry's kind from the listing, or undefined when the listing did not say.
   */
  admitsEntry(directory: HeldDirectory, name: string, isLink: boolean | undefined): boolean;
  /**
   * True when a link whose own location the policy admits may be reported, its target being at the
   * real location `target` (`linkTargetLocation`; undefined when it dangles or loops): what
   * `admitsEntry` decides of a link, for a link found where this filter's walk could not look (a
   * glob thread's walk, scan-glob-in-threads.ts).
   */
  admitsLinkTo(target: string | undefined): boolean;
  /** Entries refused so far (reported as a count, never by name). */
  readonly refused: number;
}

/** The real location of `directory.path` joined with `name` (a real directory path plus one name). */
export function entryLocation(directory: string, name: string): string {
  return directory === '/' ? `/${name}` : `${directory}/${name}`;
}

/**
 * The real location of the target of link `name` in `directory`, or undefined when it dangles, loops or
 * is gone. The link is read through the held directory; its target is then resolved by name, which only
 * decides whether the link's own name is reported: nothing is opened through it.
 */
export function linkTargetLocation(directory: HeldDirectory, name: string): string | undefined {
  try {
    return realpathSync(resolve(directory.path, directory.linkTarget(name)));
  } catch {
    return undefined;
  }
}

export function createWalkEntryFilter(policy: AccessPolicy): WalkEntryFilter {
  let refused = 0;
  // Directories whose every descendant the policy admits (asked once a directory): an entry there that
  // is no link is admitted without a check of its own.
  const wholeTrees = new WeakMap<HeldDirectory, boolean>();
  const admitsWhole = (directory: HeldDirectory): boolean => {
    let whole = wholeTrees.get(directory);
    if (whole === undefined) {
      whole = policy.admitsEveryDescendant(directory.path);
      wholeTrees.set(directory, whole);
    }
    return whole;
  };
  // A dangling or looping link: nothing behind it can be reached.
  const admitsTarget = (target: string | undefined) => target !== undefined && policy.admits(target);
  const decide = (directory: HeldDirectory, name: string, isLink: boolean | undefined): boolean => {
    if (isLink === false && admitsWhole(directory)) return true;
    if (!policy.admits(entryLocation(directory.path, name))) return false;
    try {
      if (!(isLink ?? directory.statEntry(name).isSymbolicLink())) return true;
    } catch {
      return false; // vanished
    }
    return admitsTarget(linkTargetLocation(directory, name));
  };
  return {
    admitsEntry(directory, name, isLink) {
      const admitted = decide(directory, name, isLink);
      if (!admitted) refused += 1;
      return admitted;
    },
    admitsLinkTo(target) {
      const admitted = admitsTarget(target);
      if (!admitted) refused += 1;
      return admitted;
    },
    get refused() {
      return refused;
    },
  };
}
