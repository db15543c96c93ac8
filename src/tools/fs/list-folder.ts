/**
 * The files panel's folder listing (file-operations.ts `listFolder`): list_directory's verified listing
 * (`listVerifiedDirectory`: the directory held open at its resolved real location with links refused,
 * listed through that descriptor with the walk entry filter), each admitted entry described by its own
 * `lstat` through the held directory, in folder-listing order, the first `limit` of them.
 */
import type { Dirent } from 'node:fs';
import type { HeldDirectory } from '../../descriptors/held-directory.ts';
import { errorCodeOf } from '../../descriptors/system-call-error.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import type { DirectoryEntryType, FolderEntry, FolderListingOutcome } from './file-operations.ts';
import { listVerifiedDirectory } from './list-verified-directory.ts';
import { REFUSED, unlessRefused } from './unless-refused.ts';

/** Folder-listing order: folders first, then by name (code units, as the listing always sorted). */
export function compareFolderEntries(left: FolderEntry, right: FolderEntry): number {
  const leftFolder = left.type === 'directory' ? 0 : 1;
  const rightFolder = right.type === 'directory' ? 0 : 1;
  if (leftFolder !== rightFolder) return leftFolder - rightFolder;
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

function typeOf(entry: Dirent): DirectoryEntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

function describeEntry(directory: HeldDirectory, entry: Dirent): FolderEntry {
  const type = typeOf(entry);
  try {
    const stats = directory.statEntry(entry.name);
    return {
      name: entry.name,
      type,
      ...(type === 'file' ? { size: stats.size } : {}),
      mtimeMs: stats.mtimeMs,
    };
  } catch {
    // Vanished (or renamed) while being listed: listed without size or time.
    return { name: entry.name, type };
  }
}

export async function listFolder(
  path: string,
  limit: number,
  context: ToolContext,
): Promise<FolderListingOutcome> {
  const resolved = await unlessRefused(() => resolveAndValidatePath(path, context, 'path', 'read'));
  if (resolved === undefined) return REFUSED;
  let listing: Awaited<ReturnType<typeof listVerifiedDirectory<FolderEntry>>> | undefined;
  try {
    listing = await unlessRefused(() => listVerifiedDirectory(resolved, context, describeEntry));
  } catch (error) {
    // The path names a file (a missing middle component is ENOTDIR too, and a not_found).
    if (errorCodeOf(error) === 'ENOTDIR' && resolved.exists) return { kind: 'not_directory' };
    throw describeSystemError(error, 'open', path);
  }
  if (listing === undefined) return REFUSED;
  const entries = listing.entries.sort(compareFolderEntries);
  return {
    kind: 'directory',
    real: listing.real,
    entries: entries.slice(0, limit),
    total: entries.length,
    refused: listing.refused,
  };
}
