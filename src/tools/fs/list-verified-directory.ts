/**
 * Listing a checked directory the way every listing must: opened without blocking as a directory, its
 * descriptor verified against the access policy, then listed through that descriptor
 * (`/proc/self/fd/N`), so the listing is of the directory actually checked, not of whatever a swapped
 * path names now. Each entry passes the walk gate: a symlink whose target is out of reach, or an entry
 * the policy refuses, is left out and only counted. list_directory and the web app's files panel share it.
 */
import { constants, type Dirent } from 'node:fs';
import { open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { getAccessPolicy } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import { createWalkGate } from '../access/walk-gate.ts';
import type { ToolContext } from '../types.ts';
import { SAFE_READ_FLAGS, verifyDescriptor } from './open-verified-file.ts';

export interface VerifiedListing {
  /** Real location of the listed directory (its descriptor's). */
  real: string;
  /** The admitted entries, unsorted. */
  entries: Dirent[];
  /** How many entries the policy left out. */
  refused: number;
}

/** Throws the operating system's error (ENOENT, ENOTDIR, EACCES…) for the caller to describe. */
export async function listVerifiedDirectory(
  resolved: ResolvedPath,
  context: ToolContext,
): Promise<VerifiedListing> {
  const handle = await open(resolved.absolute, SAFE_READ_FLAGS | constants.O_DIRECTORY);
  try {
    const real = await verifyDescriptor(handle, resolved, context);
    const listed = process.platform === 'linux' ? `/proc/self/fd/${handle.fd}` : real;
    const gate = createWalkGate(await getAccessPolicy(context));
    const entries = (await readdir(listed, { withFileTypes: true })).filter((entry) =>
      gate.admits(join(real, entry.name)),
    );
    return { real, entries, refused: gate.refused };
  } finally {
    await handle.close();
  }
}
