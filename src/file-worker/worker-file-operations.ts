/**
 * The file operations (tools/fs/file-operations.ts) of a call done by the file worker of its user and
 * reachable set (file-worker-pool.ts), inside that user's sandbox, as that user. Each request carries
 * the call's path settings (the worker's access policy applies them as the server's would); each
 * reply is validated (file-worker-replies.ts) before anything of it is used, and a wrong one stops the
 * worker and fails the call. The tools then judge every location a result names with the server's own
 * policy: the second wall.
 *
 * `fileWorkerOperations` is the factory a server installs (sandbox/host-file-operations.ts): calls of
 * operator mode (a root holding the worker's own directory, the whole filesystem) keep doing their
 * file work in the server, since a sandbox of everything would hold nothing back.
 */

import { FILE_WORKER_DIRECTORY } from '../sandbox/file-worker-sandbox.ts';
import { type FileOperationsFactory, inProcessFileOperations } from '../sandbox/host-file-operations.ts';
import { isPathInside } from '../tools/access/reachable-set.ts';
import { getEnabledPathListSetting } from '../tools/arg-parsing.ts';
import { ToolError } from '../tools/errors.ts';
import type { FileOperations } from '../tools/fs/file-operations.ts';
import type { ToolContext } from '../tools/types.ts';
import type { FileWorkerPool } from './file-worker-pool.ts';
import type { FileWorkerProcess } from './file-worker-process.ts';
import type { FileWorkerOperation } from './file-worker-protocol.ts';
import { MAX_CALL_PAYLOAD_BYTES } from './file-worker-protocol.ts';
import {
  downloadReply,
  folderListingReply,
  InvalidReplyError,
  inspectedFileReply,
  listingReply,
  locationReply,
  rangeReply,
  readFileReply,
  replacedFileReply,
  uploadReply,
  writeTargetReply,
} from './file-worker-replies.ts';
import { globReply } from './glob-reply.ts';
import { grepReply } from './grep-reply.ts';
import { logWorkerProtectedPathRefusal } from './worker-protected-path-refusal.ts';

/** The settings the worker's access policy reads, as the call has them. */
function pathSettings(context: ToolContext): Record<string, unknown> {
  const parameters = context.settings.parameters;
  return {
    allowedPaths: getEnabledPathListSetting(parameters, 'allowedPaths').map((path) => ({
      path,
      enabled: true,
    })),
    deniedPaths: getEnabledPathListSetting(parameters, 'deniedPaths').map((path) => ({
      path,
      enabled: true,
    })),
  };
}

/** Stops a worker whose reply (`what`) broke the rules, and the error its call fails with. */
function stopForInvalidReply(worker: FileWorkerProcess, what: string, why: string): ToolError {
  worker.invalid(`${what} is not valid (${why})`);
  return new ToolError(
    'execution_error',
    `The file worker of this call sent a reply that is not valid (${why}); it was stopped, and nothing of the reply was used.`,
  );
}

/** How a call's operations ask its worker: one call, its reply judged by `judge` before anything is used. */
type AskWorker = <T>(
  op: FileWorkerOperation,
  args: Record<string, unknown>,
  judge: (result: unknown, payload: Uint8Array) => T,
  payload?: Uint8Array,
  signal?: AbortSignal,
) => Promise<T>;

/** The asking of the call `context`'s worker, from `pool`, with the call's path settings. */
function askerFor(context: ToolContext, pool: FileWorkerPool): AskWorker {
  const parameters = pathSettings(context);
  return async <T>(
    op: FileWorkerOperation,
    args: Record<string, unknown>,
    judge: (result: unknown, payload: Uint8Array) => T,
    payload?: Uint8Array,
    signal?: AbortSignal,
  ): Promise<T> => {
    const worker: FileWorkerProcess = await pool.acquire(context.userId, context.reachable);
    try {
      const reply = await worker.call(op, parameters, args, payload, signal).catch((error: unknown) => {
        // Logged here, by the server, checked against its own protected set; invalid otherwise.
        try {
          logWorkerProtectedPathRefusal(error, context);
        } catch (invalid) {
          throw stopForInvalidReply(worker, `its refusal of ${op}`, (invalid as Error).message);
        }
        throw pool.explainFailure(worker, error);
      });
      try {
        return judge(reply.result, reply.payload);
      } catch (error) {
        if (!(error instanceof InvalidReplyError)) throw error;
        throw stopForInvalidReply(worker, `its reply to ${op}`, error.message);
      }
    } finally {
      pool.touch(worker);
    }
  };
}

export function createWorkerFileOperations(context: ToolContext, pool: FileWorkerPool): FileOperations {
  const ask = askerFor(context, pool);
  return {
    readFile: (request) =>
      ask('readFile', { ...request }, (result, bytes) => readFileReply(result, bytes, request.ceiling)),
    inspectWriteTarget: (path) => ask('inspectWriteTarget', { path }, (result) => writeTargetReply(result)),
    replaceFile: (request) =>
      ask(
        'replaceFile',
        { target: request.target, mode: request.mode ?? null, shown: request.shown },
        (result) => replacedFileReply(result, request.data.length),
        request.data,
      ),
    listDirectory: (path) => ask('listDirectory', { path }, (result) => listingReply(result)),
    resolveLocation: (absolute) => ask('resolveLocation', { absolute }, (result) => locationReply(result)),
    // The workspace files routes.
    listFolder: (request) =>
      ask('listFolder', { ...request }, (result, payload) =>
        folderListingReply(result, payload, request.limit),
      ),
    openDownload: (path) =>
      ask('openDownload', { path }, (result, payload) => downloadReply(result, payload)),
    readRange: (request) =>
      ask('readRange', { ...request }, (result, payload) => rangeReply(result, payload, request.length)),
    uploadFile: async (request) => {
      // A file larger than one frame crosses in parts (file-worker-protocol.ts), up to what one call
      // may carry.
      if (request.data.length > MAX_CALL_PAYLOAD_BYTES) {
        throw new ToolError(
          'validation_failed',
          `Cannot upload ${JSON.stringify(request.shown)}: it is ${request.data.length} bytes, and a file worker takes at most ${MAX_CALL_PAYLOAD_BYTES} bytes in one upload (MANGO_MAX_UPLOAD_BYTES may not be set above it while file workers are on).`,
        );
      }
      const { data, ...args } = request;
      return ask('uploadFile', args, (result, payload) => uploadReply(result, payload, data.length), data);
    },
    // A message's attachments.
    inspectFile: (request) => ask('inspectFile', { ...request }, (result) => inspectedFileReply(result)),
    // glob: the call's signal (a stopped turn) cancels the walk in the worker.
    globFiles: (request) =>
      ask(
        'globFiles',
        { ...request },
        (result, payload) => globReply(result, payload, request.maxResults),
        undefined,
        context.signal,
      ),
    // grep: the call's signal (its budget, a stopped turn) cancels the work in the worker.
    grepFiles: (request) =>
      ask(
        'grepFiles',
        { ...request },
        (result, payload) => grepReply(result, payload, request.options),
        undefined,
        context.signal,
      ),
  };
}

/** The factory a server installs: the call's worker, or the server itself in operator mode. */
export function fileWorkerOperations(pool: FileWorkerPool): FileOperationsFactory {
  return (context) =>
    context.reachable.roots.some((root) => isPathInside(FILE_WORKER_DIRECTORY, root.path))
      ? inProcessFileOperations(context)
      : createWorkerFileOperations(context, pool);
}
