/**
 * The sandbox of a file worker (src/file-worker/): a program sandbox of the user, planned like a stdio
 * MCP server's (bubblewrap-program-launch.ts: the user's uid, their reachable set mounted by
 * descriptor, no network, the user's shares), that runs this process's own Bun on the worker's program.
 *
 * Guarantees:
 * - What the worker runs on is the one stated exception to the protected installation directory: the
 *   Bun executable this server runs on, the worker's program and grep's and glob's thread programs (bundled
 *   files, placed in the sandbox state directory and named after their content), each mounted
 *   read-only by descriptor at
 *   {@link FILE_WORKER_DIRECTORY}. Nothing else of the installation is visible.
 * - Its environment is {@link FILE_WORKER_ENVIRONMENT} alone: no variable of the server's, so no
 *   secret, and none an operator passes through to shell commands.
 * - A reachable set with a root that would hold the worker's directory (the operator's `/`) is refused:
 *   operator mode does its file work in the server.
 */
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { isPathInside } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import { GREP_WORKER_BUNDLE_NAME } from '../tools/fs/grep/batch-executors.ts';
import { GLOB_THREAD_BUNDLE_NAME } from '../tools/fs/scan-glob-in-threads.ts';
import type { BubblewrapCallContext } from './bubblewrap-call-setup.ts';
import { prepareBubblewrapProgram } from './bubblewrap-program-launch.ts';
import { SANDBOX_HOME } from './sandbox-identity.ts';
import type { FileWorkerLaunchRequest, SandboxedProgramLaunch } from './shell-sandbox.ts';

/** Where a worker's sandbox shows its runtime and program. */
export const FILE_WORKER_DIRECTORY = '/mango-file-worker';
export const FILE_WORKER_RUNTIME = join(FILE_WORKER_DIRECTORY, 'bun');
export const FILE_WORKER_SCRIPT = join(FILE_WORKER_DIRECTORY, 'file-worker.js');
/** grep's thread program, beside the worker's: where batch-executors.ts looks for it. */
export const FILE_WORKER_GREP_SCRIPT = join(FILE_WORKER_DIRECTORY, GREP_WORKER_BUNDLE_NAME);
/** glob's thread program, beside it: where scan-glob-in-threads.ts looks for it. */
export const FILE_WORKER_GLOB_SCRIPT = join(FILE_WORKER_DIRECTORY, GLOB_THREAD_BUNDLE_NAME);

/** Every variable a worker gets. */
export const FILE_WORKER_ENVIRONMENT: Readonly<Record<string, string>> = {
  HOME: SANDBOX_HOME,
  LANG: 'C.UTF-8',
  // Bun would otherwise keep a transpiler cache in HOME; the program is plain JavaScript anyway.
  BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0',
};

export async function prepareFileWorkerSandbox(
  worker: FileWorkerLaunchRequest,
  context: Pick<BubblewrapCallContext, 'setup' | 'identityFor' | 'ready' | 'shares'>,
): Promise<SandboxedProgramLaunch> {
  if (worker.reachable.roots.some((root) => isPathInside(FILE_WORKER_DIRECTORY, root.path))) {
    throw new ToolError(
      'execution_error',
      `A file worker cannot serve a reachable set with a root that holds ${FILE_WORKER_DIRECTORY}; operator mode does its file work in the server.`,
    );
  }
  const { files } = context.ready();
  let script: string;
  let grepWorker: string;
  let globThread: string;
  try {
    script = files.placeProgram('file-worker', '.js', worker.script);
    grepWorker = files.placeProgram('grep-worker', '.js', worker.grepWorker);
    globThread = files.placeProgram('glob-thread', '.js', worker.globThread);
  } catch (error) {
    throw new ToolError('execution_error', `The file worker cannot start: ${(error as Error).message}`);
  }
  return prepareBubblewrapProgram(
    {
      argv: [FILE_WORKER_RUNTIME, FILE_WORKER_SCRIPT],
      cwd: worker.reachable.workingDirectory,
      reachable: worker.reachable,
      environment: FILE_WORKER_ENVIRONMENT,
      environmentOnly: true,
      network: 'none',
      userId: worker.userId,
      runtimeFiles: [
        { source: realpathSync(process.execPath), destination: FILE_WORKER_RUNTIME },
        { source: script, destination: FILE_WORKER_SCRIPT },
        { source: grepWorker, destination: FILE_WORKER_GREP_SCRIPT },
        { source: globThread, destination: FILE_WORKER_GLOB_SCRIPT },
      ],
    },
    context,
  );
}
