/**
 * A server's file workers: when its shell sandbox can hold them, every later tool call of a user does
 * its file work in that user's worker (worker-file-operations.ts); otherwise the server does it itself,
 * on verified descriptors, and the start-up line says why.
 */
import { installFileOperations } from '../sandbox/host-file-operations.ts';
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';
import { createFileWorkerPool, DEFAULT_FILE_WORKER_POOL, type FileWorkerPool } from './file-worker-pool.ts';
import { fileWorkerOperations } from './worker-file-operations.ts';

export interface InstalledFileWorkers {
  /** The start-up line. */
  summary: string;
  /** The pool, when workers are on (tests). */
  pool: FileWorkerPool | undefined;
  /** Puts the server's own file work back and stops every worker. */
  stop(): void;
}

export function installFileWorkers(
  sandbox: ShellSandbox,
  options: { idleMs?: number; maxWorkers?: number; now?: () => number } = {},
): InstalledFileWorkers {
  const status = sandbox.status();
  if (!status.available || status.mode !== 'bubblewrap' || sandbox.prepareFileWorker === undefined) {
    const why = status.available ? 'the shell sandbox is off' : status.reason;
    return {
      summary: `File tools work in the server process, on verified descriptors: ${why}`,
      pool: undefined,
      stop: () => {},
    };
  }
  const pool = createFileWorkerPool({ sandbox: () => sandbox, ...DEFAULT_FILE_WORKER_POOL, ...options });
  const uninstall = installFileOperations(fileWorkerOperations(pool));
  return {
    summary:
      "File tools work in each user's sandbox: a file worker per user and reachable set, as the user's uid, seeing only what the call may reach.",
    pool,
    stop: () => {
      uninstall();
      pool.dispose();
    },
  };
}
