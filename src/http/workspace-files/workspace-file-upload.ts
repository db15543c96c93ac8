/**
 * `POST /api/workspaces/:id/files?path=DIR&name=NAME[&overwrite=true]`: the request body becomes the
 * file NAME in directory DIR of a workspace.
 *
 * Guarantees:
 * - Refused before anything is written: a read-only workspace; a name that is empty, `.`, `..`, longer
 *   than 255 bytes or holds `/` or NUL; a target that is a symlink, a directory or a special file; an
 *   existing file unless `overwrite=true` (409 `file_exists`); a body over the upload cap (413, counted
 *   as it arrives, also without a Content-Length).
 * - The directory is held open from its real path with links refused, the target is described through
 *   it (never followed), and the write is the tools' atomic write in that held directory: a temp file
 *   verified for writing by the policy on the directory's real location, given its owner and mode by
 *   descriptor, then renamed (with `RENAME_NOREPLACE` for a new file, so a file that appeared meanwhile
 *   is not clobbered). A directory swapped for a link meanwhile fails the upload instead of redirecting
 *   it. A failed upload leaves the old file and no temp file.
 * - A workspace with a disk quota takes no upload its user's share cannot hold: `507 quota_exceeded`
 *   with the used figure and the limit, before the temp file exists (or when the disk fills while it is
 *   written, after it was removed).
 * - The new file belongs to the user's uid when commands run as one: the worker creates it as that uid,
 *   and the server, doing the work itself, sets that owner on the descriptor before the file takes its
 *   name, so shell commands running as that uid can use it.
 */
import { join, relative } from 'node:path';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import type { UploadOutcome } from '../../tools/fs/file-operations.ts';
import { outsideWorkspaces } from '../../workspaces/workspace-error.ts';
import { HttpError } from '../http-errors.ts';
import { describeFileError, nothingAt } from './workspace-file-errors.ts';
import { requireInWorkspace, type WorkspaceFileScope } from './workspace-file-scope.ts';

/** Longest file name most filesystems store, in bytes. */
const MAX_NAME_BYTES = 255;

export interface UploadRequest {
  /** Directory relative to the workspace root. */
  directory: string;
  name: string;
  overwrite: boolean;
  body: Uint8Array;
}

export interface UploadResult {
  workspace: string;
  /** The new file relative to the workspace root. */
  path: string;
  size: number;
  /** True when an existing file was replaced. */
  replaced: boolean;
}

/** @throws HttpError 400 naming what is wrong with `name`. */
export function checkUploadName(name: string): void {
  const refuse = (why: string) =>
    new HttpError(400, 'invalid_request', `Query parameter name ${why}; got ${JSON.stringify(name)}.`);
  if (name === '') throw refuse('must not be empty');
  if (name === '.' || name === '..') throw refuse('must name a file, not "." or ".."');
  if (name.includes('/')) throw refuse('must be a single file name without "/"');
  if (name.includes('\0')) throw refuse('must not contain a NUL byte');
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) {
    throw refuse(`must be at most ${MAX_NAME_BYTES} bytes long`);
  }
}

/**
 * Reads a request body up to `limit` bytes.
 * @throws HttpError 413 as soon as more arrive.
 */
export async function readBodyWithin(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new HttpError(
      413,
      'payload_too_large',
      `The uploaded file exceeds ${limit} bytes (MANGO_MAX_UPLOAD_BYTES).`,
    );
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export async function uploadWorkspaceFile(
  scope: WorkspaceFileScope,
  upload: UploadRequest,
): Promise<UploadResult> {
  checkUploadName(upload.name);
  if (scope.workspace.access !== 'read-write') {
    throw new HttpError(
      403,
      'permission_denied',
      `The workspace ${scope.workspace.path} is read-only for you: nothing can be uploaded into it.`,
    );
  }
  const shown = upload.directory === '.' ? upload.name : join(upload.directory, upload.name);
  let outcome: UploadOutcome;
  try {
    outcome = await fileOperationsFor(scope.context).uploadFile({
      directory: upload.directory,
      name: upload.name,
      overwrite: upload.overwrite,
      data: upload.body,
      shown,
    });
  } catch (error) {
    throw describeFileError(error, shown);
  }
  switch (outcome.kind) {
    case 'refused':
      throw outsideWorkspaces();
    case 'not_directory':
      throw new HttpError(422, 'not_a_directory', `${JSON.stringify(upload.directory)} is not a directory.`);
    case 'missing':
      throw nothingAt(outcome.at === 'directory' ? upload.directory : shown);
    case 'not_regular_file':
      // A symlink, a directory or a special file at the name: the request names the wrong thing.
      throw new HttpError(
        422,
        'not_a_regular_file',
        `Refusing to write ${JSON.stringify(shown)}: it is ${FOUND_WORDS[outcome.found]}.`,
      );
    case 'exists':
      throw new HttpError(
        409,
        'file_exists',
        `${JSON.stringify(shown)} already exists; send overwrite=true to replace it.`,
      );
    case 'appeared':
      throw new HttpError(
        409,
        'file_exists',
        `${JSON.stringify(shown)} appeared while uploading; send overwrite=true to replace it.`,
      );
    case 'written':
      await requireInWorkspace(scope, outcome.real, 'write', shown);
      return {
        workspace: scope.id,
        path: relative(scope.workspace.path, outcome.real),
        size: outcome.size,
        replaced: outcome.replaced,
      };
  }
}

const FOUND_WORDS = {
  symlink: 'a symlink',
  directory: 'a directory',
  special: 'not a regular file',
} as const;
