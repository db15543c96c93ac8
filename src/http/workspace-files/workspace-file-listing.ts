/**
 * `GET /api/workspaces/:id/files?path=`: the entries of one directory of a workspace, folders first,
 * then by name, with size and modification time. The file work is the request's file operations'
 * `listFolder` (in the user's file worker when the server runs them): list_directory's own verified
 * listing, the directory held open at its resolved real path with links refused on every component,
 * listed through that descriptor with the walk entry filter (a symlink whose target lies outside the
 * workspace is left out, counted in `omitted`), each entry described through the held directory
 * without following it. The listed location is decided again here (the second wall).
 */
import { relative } from 'node:path';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import type { DirectoryEntryType, FolderListingOutcome } from '../../tools/fs/file-operations.ts';
import { outsideWorkspaces } from '../../workspaces/workspace-error.ts';
import { HttpError } from '../http-errors.ts';
import { describeFileError } from './workspace-file-errors.ts';
import { requireInWorkspace, type WorkspaceFileScope } from './workspace-file-scope.ts';

/** Most entries one listing returns. */
export const MAX_LISTED_FILES = 1000;

export interface FileEntry {
  name: string;
  type: DirectoryEntryType;
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

export async function listWorkspaceFiles(scope: WorkspaceFileScope, path: string): Promise<FileListing> {
  let listing: FolderListingOutcome;
  try {
    listing = await fileOperationsFor(scope.context).listFolder({ path, limit: MAX_LISTED_FILES });
  } catch (error) {
    throw describeFileError(error, path);
  }
  if (listing.kind === 'refused') throw outsideWorkspaces();
  if (listing.kind === 'not_directory') {
    throw new HttpError(
      422,
      'not_a_directory',
      `${JSON.stringify(path)} is a file, not a directory; download it with GET /api/workspaces/${scope.id}/files/content?path=…`,
    );
  }
  await requireInWorkspace(scope, listing.real, 'read', path);
  return {
    workspace: scope.id,
    path: relative(scope.workspace.path, listing.real),
    entries: listing.entries.map(
      ({ name, type, size, mtimeMs }): FileEntry => ({
        name,
        type,
        ...(size === undefined ? {} : { size }),
        ...(mtimeMs === undefined ? {} : { modifiedAt: new Date(mtimeMs).toISOString() }),
      }),
    ),
    omitted: listing.refused,
    truncated: listing.total > MAX_LISTED_FILES,
  };
}
