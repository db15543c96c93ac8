/**
 * Listing a checked directory the way every listing must: the directory is opened at its checked real
 * location with links refused on every component (a swap since the check fails with `ELOOP`) and listed
 * through that descriptor, so the listing is of the directory actually checked, not of whatever a swapped
 * path names now. Each entry passes the walk entry filter: a symlink whose target is out of reach, or an entry the
 * policy refuses, is left out and only counted. list_directory and the web app's files panel share it.
 */
import type { Dirent } from 'node:fs';
import { HeldDirectory, withHeldDirectory } from '../../descriptors/held-directory.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import { createWalkEntryFilter } from '../access/walk-entry-filter.ts';
import type { ToolContext } from '../types.ts';
import { linkKindOf } from './walk-tree.ts';

export interface VerifiedListing<Entry = Dirent> {
  /** Real location of the listed directory. */
  real: string;
  /** The admitted entries, unsorted. */
  entries: Entry[];
  /** How many entries the policy left out. */
  refused: number;
}

/**
 * Lists `resolved`; `describe` (default: the entry itself) turns each admitted entry into what the
 * caller keeps, while the directory is still held, so it may look at the entry through `directory`.
 * Throws the operating system's error (ENOENT, ENOTDIR, EACCES, ELOOP…) for the caller to describe.
 */
export async function listVerifiedDirectory<Entry = Dirent>(
  resolved: ResolvedPath,
  context: ToolContext,
  describe: (directory: HeldDirectory, entry: Dirent) => Entry = (_directory, entry) => entry as Entry,
): Promise<VerifiedListing<Entry>> {
  const policy = await getAccessPolicy(context);
  policy.require(resolved.real, 'read', resolved.input, resolved.absolute);
  return withHeldDirectory(HeldDirectory.open(resolved.real), async (directory) => {
    const filter = createWalkEntryFilter(policy);
    const entries = (await directory.entries())
      .filter((entry) => filter.admitsEntry(directory, entry.name, linkKindOf(entry)))
      .map((entry) => describe(directory, entry));
    return { real: resolved.real, entries, refused: filter.refused };
  });
}
