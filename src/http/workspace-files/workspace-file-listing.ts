/**
 * `GET /api/workspaces/:id/files?path=`: the entries of one directory of a workspace, folders first,
 * then by name, with size and modification time. It is list_directory's own listing
 * (`listVerifiedDirectory`): the directory held open at its resolved real path with links refused on
 * every component, listed through that descriptor with the walk entry filter (a symlink whose target lies
 * outside the workspace is left out, counted in `omitted`), and each entry described through the held
 * directory without following it.
 */
import type { Dirent, Stats } from 'node:fs';
import { relative } from 'node:path';
import type { HeldDirectory } from '../../descriptors/held-directory.ts';
import { listVerifiedDirectory, type VerifiedListing } from '../../tools/fs/list-verified-directory.ts';
import { HttpError } from '../http-errors.ts';
import { describeFileError } from './workspace-file-errors.ts';
import { resolveInWorkspace, type WorkspaceFileScope, withinWorkspace } from './workspace-file-scope.ts';

/** Most entries one listing returns. */
export const MAX_LISTED_FILES = 1000;

export type FileEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface FileEntry {
  name: string;
  type: FileEntryType;
  /** Bytes, for a regular file. */
  size?: number;
  /** ISO 8601; absent when the entry vanished while being listed. */
  modifiedAt?: string;
}

export interface FileListing {
  /** The workspace's id. */
  workspace: string;
  /** The listed directory relative to the workspace root, `''` for the root. */
  path: string;
  entries: FileEntry[];
  /** Entries left out because they lead outside the workspace. */
  omitted: number;
  /** True when more than `MAX_LISTED_FILES` entries were there. */
  truncated: boolean;
}

function typeOf(entry: Dirent): FileEntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

function compareEntries(left: FileEntry, right: FileEntry): number {
  const leftFolder = left.type === 'directory' ? 0 : 1;
  const rightFolder = right.type === 'directory' ? 0 : 1;
  if (leftFolder !== rightFolder) return leftFolder - rightFolder;
  return left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
}

interface DescribedEntry {
  entry: Dirent;
  stats: Stats | undefined;
}

/** An entry with its own `lstat`, taken through the held directory. */
function describeEntry(directory: HeldDirectory, entry: Dirent): DescribedEntry {
  let stats: Stats | undefined;
  try {
    stats = directory.statEntry(entry.name);
  } catch {
    // Vanished (or renamed) while being listed: listed without size or time.
  }
  return { entry, stats };
}

export async function listWorkspaceFiles(scope: WorkspaceFileScope, path: string): Promise<FileListing> {
  const resolved = await resolveInWorkspace(scope, path);
  let listing: VerifiedListing<DescribedEntry>;
  try {
    listing = await withinWorkspace(() => listVerifiedDirectory(resolved, scope.context, describeEntry));
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOTDIR' && resolved.exists) {
      throw new HttpError(
        422,
        'not_a_directory',
        `${JSON.stringify(path)} is a file, not a directory; download it with GET /api/workspaces/${scope.id}/files/content?path=…`,
      );
    }
    throw describeFileError(error, path);
  }
  const entries = listing.entries.map(({ entry, stats }): FileEntry => {
    const type = typeOf(entry);
    return {
      name: entry.name,
      type,
      ...(stats !== undefined && type === 'file' ? { size: stats.size } : {}),
      ...(stats === undefined ? {} : { modifiedAt: new Date(stats.mtimeMs).toISOString() }),
    };
  });
  entries.sort(compareEntries);
  return {
    workspace: scope.id,
    path: relative(scope.workspace.path, listing.real),
    entries: entries.slice(0, MAX_LISTED_FILES),
    omitted: listing.refused,
    truncated: entries.length > MAX_LISTED_FILES,
  };
}
