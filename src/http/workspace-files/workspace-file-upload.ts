/**
 * `POST /api/workspaces/:id/files?path=DIR&name=NAME[&overwrite=true]`: the request body becomes the
 * file NAME in directory DIR of a workspace.
 *
 * Guarantees:
 * - Refused before anything is written: a read-only workspace; a name that is empty, `.`, `..`, longer
 *   than 255 bytes or holds `/` or NUL; a target that is a symlink, a directory or a special file; an
 *   existing file unless `overwrite=true` (409 `file_exists`); a body over the upload cap (413, counted
 *   as it arrives, also without a Content-Length).
 * - The write is the tools' atomic write: a temp file in the same directory, verified for writing by
 *   the policy on its descriptor's real directory, then renamed (or linked, for a new file, so a file
 *   that appeared meanwhile is not clobbered). A failed upload leaves the old file and no temp file.
 * - The new file gets the owner workspace files get (the shell sandbox's uid when commands run as one), set on the descriptor before it
 *   takes its name, so shell commands running as that uid can use it.
 */
import { lstat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { getAccessPolicy } from '../../tools/access/access-policy.ts';
import { ToolError } from '../../tools/errors.ts';
import { writeFileAtomically } from '../../tools/fs/atomic-write.ts';
import { inspectWriteTarget } from '../../tools/fs/overwrite-guard.ts';
import { HttpError } from '../http-errors.ts';
import { describeFileError } from './workspace-file-errors.ts';
import { resolveInWorkspace, type WorkspaceFileScope, withinWorkspace } from './workspace-file-scope.ts';

/** Longest file name most filesystems store, in bytes. */
const MAX_NAME_BYTES = 255;

export interface UploadRequest {
  /** Directory relative to the workspace root. */
  directory: string;
  name: string;
  overwrite: boolean;
  body: Uint8Array;
  owner?: { uid: number; gid: number };
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
  const directory = await resolveInWorkspace(scope, upload.directory);
  const directoryStats = await lstat(directory.real).catch((error: unknown) => {
    throw describeFileError(error, upload.directory);
  });
  if (!directoryStats.isDirectory()) {
    throw new HttpError(422, 'not_a_directory', `${JSON.stringify(upload.directory)} is not a directory.`);
  }
  const shown = upload.directory === '.' ? upload.name : join(upload.directory, upload.name);
  // The name is joined to the directory's real path: the directory is decided, only the name is new.
  const target = await resolveInWorkspace(scope, join(directory.real, upload.name), 'write');
  const state = await inspectWriteTarget(target, shown).catch((error: unknown) => {
    // A symlink, a directory or a special file at the name: the request names the wrong thing.
    if (ToolError.isInstance(error) && error.classification === 'execution_error') {
      throw new HttpError(422, 'not_a_regular_file', error.message);
    }
    throw describeFileError(error, shown);
  });
  if (state === 'file' && !upload.overwrite) {
    throw new HttpError(
      409,
      'file_exists',
      `${JSON.stringify(shown)} already exists; send overwrite=true to replace it.`,
    );
  }
  const mode = state === 'file' ? (await lstat(target.absolute)).mode & 0o7777 : undefined;
  const policy = await getAccessPolicy(scope.context);
  try {
    const written = await withinWorkspace(() =>
      writeFileAtomically(target.real, upload.body, {
        mode,
        create: state === 'missing',
        owner: upload.owner,
        verifyTarget: async (realTarget) => policy.require(realTarget, 'write', shown, realTarget),
      }),
    );
    return {
      workspace: scope.id,
      path: relative(scope.workspace.path, written.path),
      size: written.size,
      replaced: state === 'file',
    };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') {
      throw new HttpError(
        409,
        'file_exists',
        `${JSON.stringify(shown)} appeared while uploading; send overwrite=true to replace it.`,
      );
    }
    throw describeFileError(error, shown);
  }
}
