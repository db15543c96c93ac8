/**
 * `GET /api/workspaces/:id/files?path=`: the entries of one directory of a workspace, folders first,
 * then by name, with size and modification time. The directory is held open from its resolved real
 * path with links refused on every component (a link swapped in after the decision fails the listing
 * instead of being followed), its descriptor's location is verified against the policy, and it is
 * listed through that descriptor with the tools' own walk gate: a symlink whose target lies outside the
 * workspace is left out (counted in `omitted`). Each entry is described through the held directory
 * without following it.
 */
import type { Dirent, Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { HeldDirectory, withHeldDirectory } from '../../descriptors/held-directory.ts';
import { getAccessPolicy } from '../../tools/access/access-policy.ts';
import { createWalkGate } from '../../tools/access/walk-gate.ts';
import { realPathOfDescriptor } from '../../tools/fs/open-verified-file.ts';
import type { ToolContext } from '../../tools/types.ts';
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

interface HeldListing {
  real: string;
  entries: { entry: Dirent; stats: Stats | undefined }[];
  refused: number;
}

/** Lists the held directory after verifying where it really is; entries the policy refuses are counted. */
async function listHeld(directory: HeldDirectory, shown: string, context: ToolContext): Promise<HeldListing> {
  const policy = await getAccessPolicy(context);
  const real = await realPathOfDescriptor(directory, directory.path);
  policy.require(real, 'read', shown, real);
  const gate = createWalkGate(policy);
  const admitted = (await directory.entries()).filter((entry) => gate.admits(join(real, entry.name)));
  const entries = admitted.map((entry) => {
    let stats: Stats | undefined;
    try {
      stats = directory.statEntry(entry.name);
    } catch {
      // Vanished (or renamed) while being listed: listed without size or time.
    }
    return { entry, stats };
  });
  return { real, entries, refused: gate.refused };
}

export async function listWorkspaceFiles(scope: WorkspaceFileScope, path: string): Promise<FileListing> {
  const resolved = await resolveInWorkspace(scope, path);
  let listing: HeldListing;
  try {
    listing = await withinWorkspace(async () =>
      withHeldDirectory(HeldDirectory.open(resolved.real), (directory) =>
        listHeld(directory, resolved.input, scope.context),
      ),
    );
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
