/**
 * Where grep searches a batch of files: in the calling thread (small searches, linear engines only) or in
 * a pool of worker threads (the JavaScript engine, and big trees where a second core pays). Terminating the
 * pool stops a runaway pattern mid-line; pending batches then reject with the given reason.
 */

import { type ReferencedWorker, threadProgramUrl } from '../thread-program.ts';
import type { GrepOptions } from './grep-options.ts';
import type { GrepWorkerReply, GrepWorkerRequest } from './grep-worker.ts';
import { type BatchResult, summarizeBatch, unpackBatch } from './packed-outcome.ts';
import { type FileOpening, searchFileSync } from './search-file.ts';
import { createTextSearcher } from './text-searcher.ts';

export interface BatchExecutor {
  /**
   * Searches `files`; with `room`, the most matching lines the search can still take, the batch stops
   * at the file whose matches pass it (a bound: batches before it in flight may take some of it).
   */
  run(files: string[], room?: number): Promise<BatchResult>;
  /** Stops all work; pending runs reject with `reason`. */
  close(reason?: unknown): void;
}

/**
 * The calling thread yields to the event loop once this much time has passed since its last yield. A
 * yield after every batch cost ~0.4 ms each (an event-loop turn), ~50 ms over 16 000 files; a batch
 * takes ~2 ms, so other requests still wait at most a few ms.
 */
export const IN_PROCESS_YIELD_INTERVAL_MS = 8;

/** Searches in the calling thread, yielding to the event loop at least every IN_PROCESS_YIELD_INTERVAL_MS. */
export function createInProcessExecutor(
  options: GrepOptions,
  opening: FileOpening = 'verified',
): BatchExecutor {
  if (options.spec.engine === 'javascript')
    throw new Error('The javascript grep engine must not run on the main thread.');
  const searcher = createTextSearcher(options.spec);
  let lastYield = performance.now();
  return {
    async run(files, room) {
      const outcomes = summarizeBatch(
        files,
        (file) => searchFileSync(file, searcher, options, opening),
        room,
      );
      if (performance.now() - lastYield >= IN_PROCESS_YIELD_INTERVAL_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        lastYield = performance.now();
      }
      return outcomes;
    },
    close() {},
  };
}

interface Pending {
  resolve: (result: BatchResult) => void;
  reject: (reason: unknown) => void;
}

export interface WorkerExecutor extends BatchExecutor {
  /**
   * Every worker has booted (a kept one has: it only builds this search's matcher before the first
   * batch, which waits for that, so the caller need not wait for its answer to the init).
   */
  readonly ready: boolean;
}

/**
 * The worker thread's program: beside this module in the sources (`grep-worker.ts`), and beside the
 * bundle that holds this module in a file worker's sandbox, where file-worker-bundle.ts builds it as
 * {@link GREP_WORKER_BUNDLE_NAME} and file-worker-sandbox.ts mounts it next to the worker's program.
 */
export const GREP_WORKER_BUNDLE_NAME = 'grep-worker.js';

/** A thread and the slot that says which search it serves (see `keep` below). */
interface GrepThread {
  worker: ReferencedWorker;
  generation: Int32Array;
}

/** Threads kept booted between searches, at most {@link MAX_KEPT_THREADS}. */
const kept: GrepThread[] = [];
const MAX_KEPT_THREADS = 2;
/** Batch ids are unique across searches: a kept thread may still answer one of the search before. */
let nextBatchId = 0;

/**
 * A kept thread (with `keep`) or a new one, told the search it now serves; `warm` says it was kept,
 * so it has booted and only builds this search's matcher before its first batch.
 */
function takeThread(
  options: GrepOptions,
  opening: FileOpening,
  keep: boolean,
): { thread: GrepThread; warm: boolean } {
  const reused = keep ? kept.pop() : undefined;
  const thread = reused ?? {
    worker: new Worker(
      threadProgramUrl(import.meta.url, 'grep-worker.ts', GREP_WORKER_BUNDLE_NAME),
    ) as ReferencedWorker,
    generation: new Int32Array(new SharedArrayBuffer(4)),
  };
  thread.worker.ref();
  const init: GrepWorkerRequest = {
    type: 'init',
    options,
    opening,
    ...(keep
      ? { generation: { shared: thread.generation, value: Atomics.add(thread.generation, 0, 1) + 1 } }
      : {}),
  };
  thread.worker.postMessage(init);
  return { thread, warm: reused !== undefined };
}

/** Keeps `thread` for the next search when `keepIt` (and there is room), else terminates it. */
function releaseThread(thread: GrepThread, keepIt: boolean): void {
  if (!keepIt || kept.length >= MAX_KEPT_THREADS) {
    thread.worker.terminate();
    return;
  }
  // This search's batches still queued there are dropped: the slot no longer names it.
  Atomics.add(thread.generation, 0, 1);
  thread.worker.onmessage = null;
  // A kept thread that fails while idle is never handed to a search.
  thread.worker.onerror = () => {
    const index = kept.indexOf(thread);
    if (index !== -1) kept.splice(index, 1);
    thread.worker.terminate();
  };
  // A kept thread keeps no process alive.
  thread.worker.unref();
  kept.push(thread);
}

/**
 * A pool of `size` workers; batches go to the worker with the fewest in flight. With `keep`, threads
 * kept by an earlier search are taken first and, when this one ends without a reason (not stopped by a
 * signal, no thread failed), kept for the next instead of terminated: the batches still queued for them
 * are dropped unanswered (their slot moved on), so the next search waits at most for the batch each is
 * in. Only a confined file worker keeps threads (runGrepSearch's `keepThreads`): the server's never
 * outlive their search.
 */
export function createWorkerExecutor(
  options: GrepOptions,
  size: number,
  opening: FileOpening = 'verified',
  keep = false,
): WorkerExecutor {
  const pending = new Map<number, Pending>();
  const inFlight: number[] = [];
  const owner = new Map<number, number>();
  let closed: { reason: unknown } | undefined;
  let failed = false;
  const booted: boolean[] = [];
  const threads: GrepThread[] = Array.from({ length: size }, (_, index) => {
    const { thread, warm } = takeThread(options, opening, keep);
    booted.push(warm);
    const { worker } = thread;
    worker.onmessage = (event: MessageEvent<GrepWorkerReply>) => {
      if (event.data.type === 'ready') {
        booted[index] = true;
        return;
      }
      const entry = pending.get(event.data.id);
      if (entry === undefined) return;
      pending.delete(event.data.id);
      owner.delete(event.data.id);
      inFlight[index] = (inFlight[index] ?? 1) - 1;
      entry.resolve(unpackBatch(event.data.batch));
    };
    worker.onerror = (event) => {
      failed = true;
      const error = new Error(`grep worker failed: ${event.message}`);
      for (const [id, entry] of pending) {
        if (owner.get(id) === index) {
          pending.delete(id);
          entry.reject(error);
        }
      }
    };
    inFlight.push(0);
    return thread;
  });
  const workers = threads.map((thread) => thread.worker);
  return {
    get ready() {
      return booted.every(Boolean);
    },
    run(files, room) {
      if (closed) return Promise.reject(closed.reason);
      const id = nextBatchId++;
      let target = 0;
      for (let index = 1; index < workers.length; index += 1) {
        if (inFlight[index]! < inFlight[target]!) target = index;
      }
      inFlight[target] = inFlight[target]! + 1;
      owner.set(id, target);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const batch: GrepWorkerRequest = {
          type: 'batch',
          id,
          files: files.join('\0'),
          ...(room === undefined ? {} : { room }),
        };
        workers[target]!.postMessage(batch);
      });
    },
    close(reason) {
      if (closed) return;
      closed = { reason };
      for (const thread of threads) releaseThread(thread, keep && reason === undefined && !failed);
      for (const entry of pending.values()) entry.reject(reason);
      pending.clear();
    },
  };
}
