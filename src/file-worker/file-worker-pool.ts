/**
 * The warm file workers of one server: one per user and reachable set, started at the first call that
 * needs it and kept for the next, like the shells' warm sandboxes.
 *
 * Guarantees:
 * - Never shared: a worker is handed only to calls of exactly its key, the user and the whole
 *   reachable set it was started with (roots and their access, working directory, home, protected
 *   paths). Another user, or the same user in another chat scope, gets a worker of their own.
 * - Calls that need a worker while it starts wait for that one start; a start that fails fails them
 *   all, and the next call tries again.
 * - A worker that ended (it crashed, was killed, broke the protocol) leaves the pool when it ends; the
 *   call that met it fails with the worker's error (file-worker-process.ts), the next one starts a new
 *   one.
 * - Bounded: at most `maxWorkers` run at once; starting past the bound first stops the worker of
 *   another key that was used longest ago and has no call in flight (when every one is busy, the new
 *   one runs beside them until they finish).
 * - Idle workers end: one without a call in flight for `idleMs` on the pool's clock is stopped by the
 *   next sweep (every `idleMs / 2` on a timer that keeps no process alive, or `sweep()` for tests that
 *   move the clock themselves).
 * - `dispose()` stops every worker; a disposed pool starts none.
 */
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import { fileWorkerProgram } from './file-worker-bundle.ts';
import { FileWorkerProcess } from './file-worker-process.ts';

export interface FileWorkerPoolOptions {
  /** The sandbox the workers run in (the shells' one). */
  sandbox: () => ShellSandbox;
  /** Workers that may run at once. */
  maxWorkers: number;
  /** How long a worker without a call may wait before it is stopped, milliseconds. */
  idleMs: number;
  /** The pool's clock (epoch milliseconds); default `Date.now`. */
  now?: () => number;
  /** Receives the workers' stderr lines, wrapped (default: this process's stderr). */
  log?: (line: string) => void;
}

export interface FileWorkerPool {
  /** The worker of `userId` over `reachable`, started when there is none. */
  acquire(userId: string, reachable: ReachableSet): Promise<FileWorkerProcess>;
  /** Marks the worker of a call used now (the idle time counts from the end of its last call). */
  touch(worker: FileWorkerProcess): void;
  /** Stops the workers idle for `idleMs` or more. */
  sweep(): void;
  /** The running workers, by key (tests). */
  workers(): Map<string, FileWorkerProcess>;
  /**
   * The error a call of `worker` fails with when `error` ended it: its user's process limit, in the
   * sandbox's words, when the limit refused them a process or thread since the worker started or holds
   * them at it now (a worker ends when it cannot make a thread); `error` otherwise. A worker that
   * cannot start for the limit fails `acquire` the same way.
   */
  explainFailure(worker: FileWorkerProcess, error: unknown): unknown;
  dispose(): void;
}

export const DEFAULT_FILE_WORKER_POOL = { maxWorkers: 32, idleMs: 60_000 };

/** The key a worker serves: the user and the whole reachable set (see the module header). */
export function fileWorkerKey(userId: string, reachable: ReachableSet): string {
  const roots = reachable.roots
    .map((root) => [root.path, root.access, root.diskQuotaBytes ?? null] as const)
    .sort((left, right) => (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0));
  return JSON.stringify([
    userId,
    reachable.workingDirectory,
    reachable.homeDirectory,
    roots,
    [...reachable.protectedPaths].sort(),
  ]);
}

interface Entry {
  worker?: FileWorkerProcess;
  starting?: Promise<FileWorkerProcess>;
  usedAt: number;
}

/**
 * A failure of file work while its user's processes are at their limit (a fork loop of theirs, say)
 * is one for that reason, not one of the worker's own: `limit` (a watch on it) words it instead of the
 * worker's crash. Any other error is passed on as it is.
 */
export function failedAtProcessLimit(limit: () => string | undefined, error: unknown): unknown {
  if (!ToolError.isInstance(error) || error.classification !== 'execution_error') return error;
  const message = limit();
  return message === undefined ? error : new ToolError('execution_error', message);
}

/** A watch on `userId`'s process limit from now, worded for file work; none without one. */
function watchProcessLimit(options: FileWorkerPoolOptions, userId: string): () => string | undefined {
  return (
    options.sandbox().watchProcessLimit?.(userId, 'The file work of this call could not run') ??
    (() => undefined)
  );
}

/**
 * A new worker of `userId` over `reachable`, in the sandbox of the pool, with its watch on the user's
 * process limit from just before it started (a start that failed for the limit says so).
 */
async function startWorker(
  options: FileWorkerPoolOptions,
  userId: string,
  reachable: ReachableSet,
): Promise<{ worker: FileWorkerProcess; limit: () => string | undefined }> {
  const sandbox = options.sandbox();
  if (sandbox.prepareFileWorker === undefined) {
    throw new ToolError('execution_error', "This server's sandbox cannot hold file workers.");
  }
  const limit = watchProcessLimit(options, userId);
  try {
    const launch = await sandbox.prepareFileWorker({ userId, reachable, ...(await fileWorkerProgram()) });
    return { worker: await FileWorkerProcess.start({ launch, userId, reachable, log: options.log }), limit };
  } catch (error) {
    throw failedAtProcessLimit(limit, error);
  }
}

/** The entries whose worker has had no call in flight for `idleMs` or more at `at`. */
function idleEntries(entries: Map<string, Entry>, at: number, idleMs: number): [string, Entry][] {
  return [...entries].filter(
    ([, entry]) => entry.worker !== undefined && entry.worker.busy === 0 && at - entry.usedAt >= idleMs,
  );
}

export function createFileWorkerPool(options: FileWorkerPoolOptions): FileWorkerPool {
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();
  let disposed = false;

  const stopEntry = (key: string, entry: Entry) => {
    entries.delete(key);
    entry.worker?.stop();
  };
  const makeRoom = (forKey: string) => {
    const running = [...entries].filter(([key, entry]) => key !== forKey && entry.worker !== undefined);
    if (entries.size < options.maxWorkers) return;
    const idle = running
      .filter(([, entry]) => entry.worker?.busy === 0)
      .sort((left, right) => left[1].usedAt - right[1].usedAt)[0];
    if (idle !== undefined) stopEntry(idle[0], idle[1]);
  };
  // Each worker's watch on its user's process limit, from just before it started.
  const limits = new WeakMap<FileWorkerProcess, () => string | undefined>();
  const start = async (key: string, entry: Entry, userId: string, reachable: ReachableSet) => {
    const { worker, limit } = await startWorker(options, userId, reachable);
    limits.set(worker, limit);
    if (disposed || entries.get(key) !== entry) {
      worker.stop();
      throw new ToolError('execution_error', 'The file workers were shut down.');
    }
    entry.worker = worker;
    entry.starting = undefined;
    // A worker that ends leaves the pool; the next call of its key starts another.
    void worker.exited.then(() => {
      if (entries.get(key)?.worker === worker) entries.delete(key);
    });
    return worker;
  };

  const sweep = () => {
    for (const [key, entry] of idleEntries(entries, now(), options.idleMs)) stopEntry(key, entry);
  };
  const timer = setInterval(sweep, Math.max(1000, Math.floor(options.idleMs / 2)));
  timer.unref?.();

  return {
    explainFailure: (worker, error) => failedAtProcessLimit(limits.get(worker) ?? (() => undefined), error),
    async acquire(userId: string, reachable: ReachableSet): Promise<FileWorkerProcess> {
      if (disposed) throw new ToolError('execution_error', 'The file workers were shut down.');
      const key = fileWorkerKey(userId, reachable);
      const existing = entries.get(key);
      if (existing?.worker?.alive) {
        existing.usedAt = now();
        return existing.worker;
      }
      if (existing?.starting) return existing.starting;
      if (existing) entries.delete(key);
      makeRoom(key);
      const entry: Entry = { usedAt: now() };
      entries.set(key, entry);
      entry.starting = start(key, entry, userId, reachable).catch((error: unknown) => {
        if (entries.get(key) === entry) entries.delete(key);
        throw error;
      });
      return entry.starting;
    },
    touch(worker: FileWorkerProcess): void {
      for (const entry of entries.values()) if (entry.worker === worker) entry.usedAt = now();
    },
    sweep,
    workers(): Map<string, FileWorkerProcess> {
      const running = new Map<string, FileWorkerProcess>();
      for (const [key, entry] of entries) if (entry.worker?.alive) running.set(key, entry.worker);
      return running;
    },
    dispose(): void {
      disposed = true;
      clearInterval(timer);
      for (const [key, entry] of [...entries]) stopEntry(key, entry);
    },
  };
}
