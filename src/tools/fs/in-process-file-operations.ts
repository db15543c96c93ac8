/**
 * The file operations (file-operations.ts) done in this process, on verified descriptors: the path
 * resolved and decided by the call's access policy, every open by object with links refused
 * (docs/isolation.md). The server uses it in operator mode and where no sandbox can hold the work;
 * the file worker (src/file-worker/) runs this same implementation inside the user's sandbox, as the
 * user, so the code that does the work is one.
 */
import type { Dirent } from 'node:fs';
import { resolveHere } from '../access/location-resolution.ts';
import { type ResolvedPath, resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { ToolArgumentError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import { openDownload, readRange } from './download-ranges.ts';
import type {
  DirectoryEntryType,
  DirectoryListing,
  FileOperations,
  ReadFileOutcome,
  ReadFileRequest,
  ReplacedFile,
  ReplaceFileRequest,
  WriteTarget,
} from './file-operations.ts';
import { globFiles } from './glob-files.ts';
import { grepFiles } from './grep/grep-files.ts';
import { inspectFile } from './inspect-file.ts';
import { listFolder } from './list-folder.ts';
import { listVerifiedDirectory } from './list-verified-directory.ts';
import { statVerified } from './open-verified-file.ts';
import { inspectWriteTarget } from './overwrite-guard.ts';
import { readVerifiedFile } from './read-verified-file.ts';
import { replaceFile } from './replace-file.ts';
import { uploadFile } from './upload-file.ts';

/** Who files and directories created for the call's user must belong to; undefined keeps this process's. */
export type FileOwnerLookup = () => Promise<{ uid: number; gid: number } | undefined>;

function entryType(entry: Dirent): DirectoryEntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

function isNonDirectory(resolved: ResolvedPath): boolean {
  try {
    return !statVerified(resolved).isDirectory();
  } catch {
    return false;
  }
}

async function listDirectory(path: string, context: ToolContext): Promise<DirectoryListing> {
  const resolved = await resolveAndValidatePath(path, context);
  try {
    const listing = await listVerifiedDirectory(resolved, context);
    const entries = listing.entries
      .map((entry) => ({ name: entry.name, type: entryType(entry) }))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    return { real: listing.real, entries, refused: listing.refused };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // The path itself names a file: the argument is wrong, not missing (ENOTDIR also means a middle
    // component is a file, which is a not_found and keeps describeSystemError's wording).
    if (code === 'ENOTDIR' && isNonDirectory(resolved)) {
      throw new ToolArgumentError(
        `Cannot list ${JSON.stringify(path)}: it is a file, not a directory. Read a file with read_file.`,
      );
    }
    throw describeSystemError(error, 'list', path);
  }
}

/** The operations of the call `context`, done here; `owner` is asked only when a file is created. */
export function createInProcessFileOperations(context: ToolContext, owner: FileOwnerLookup): FileOperations {
  return {
    async readFile(request: ReadFileRequest): Promise<ReadFileOutcome> {
      const resolved = await resolveAndValidatePath(request.path, context, 'path', request.need);
      return readVerifiedFile(resolved, context, {
        ceiling: request.ceiling,
        action: request.action,
        shown: request.path,
        need: request.need,
      });
    },
    async inspectWriteTarget(path: string): Promise<WriteTarget> {
      const resolved = await resolveAndValidatePath(path, context, 'path', 'write');
      return { real: resolved.real, kind: await inspectWriteTarget(resolved, path) };
    },
    async replaceFile(request: ReplaceFileRequest): Promise<ReplacedFile> {
      return replaceFile(request.target, request.data, request.mode, context, request.shown, await owner());
    },
    listDirectory: (path: string) => listDirectory(path, context),
    resolveLocation: resolveHere,
    // The workspace files routes.
    listFolder: (request) => listFolder(request.path, request.limit, context),
    openDownload: (path) => openDownload(path, context),
    readRange: (request) => readRange(request, context),
    uploadFile: (request) => uploadFile(request, context, owner),
    // A message's attachments.
    inspectFile: (request) => inspectFile(request, context),
    // glob.
    globFiles: (request) => globFiles(request, context),
    // grep.
    grepFiles: (request) => grepFiles(request, context),
  };
}
