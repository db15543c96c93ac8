/**
 * Where grep searches a batch of files: in the calling thread (small searches, linear engines only) or in
 * a pool of worker threads (the JavaScript engine, and big trees where a second core pays). Terminating the
 * pool stops a runaway pattern mid-line; pending batches then reject with the given reason.
 */
import type { GrepOptions } from './grep-options.ts';
import type { GrepWorkerReply, GrepWorkerRequest } from './grep-worker.ts';
import { type BatchResult, summarizeBatch, unpackBatch } from './packed-outcome.ts';
import { type FileOpening, searchFileSync } from './search-file.ts';
import { createTextSearcher } from './text-searcher.ts';

export interface BatchExecutor {
  run(files: string[]): Promise<BatchResult>;
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
    async run(files) {
      const outcomes = summarizeBatch(files, (file) => searchFileSync(file, searcher, options, opening));
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
  /** Every worker has booted and built its matcher (batches sent earlier simply wait). */
  readonly ready: boolean;
}

/**
 * The worker thread's program: beside this module in the sources (`grep-worker.ts`), and beside the
 * bundle that holds this module in a file worker's sandbox, where file-worker-bundle.ts builds it as
 * {@link GREP_WORKER_BUNDLE_NAME} and file-worker-sandbox.ts mounts it next to the worker's program.
 */
export const GREP_WORKER_BUNDLE_NAME = 'grep-worker.js';

function grepWorkerUrl(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? './grep-worker.ts' : `./${GREP_WORKER_BUNDLE_NAME}`, here).href;
}

/** A pool of `size` workers; batches go to the worker with the fewest in flight. */
export function createWorkerExecutor(
  options: GrepOptions,
  size: number,
  opening: FileOpening = 'verified',
): WorkerExecutor {
  const pending = new Map<number, Pending>();
  const inFlight: number[] = [];
  const owner = new Map<number, number>();
  let nextId = 0;
  let closed: { reason: unknown } | undefined;
  let booted = 0;
  const workers = Array.from({ length: size }, (_, index) => {
    const worker = new Worker(grepWorkerUrl());
    const init: GrepWorkerRequest = { type: 'init', options, opening };
    worker.postMessage(init);
    worker.onmessage = (event: MessageEvent<GrepWorkerReply>) => {
      if (event.data.type === 'ready') {
        booted += 1;
        return;
      }
      const entry = pending.get(event.data.id);
      pending.delete(event.data.id);
      owner.delete(event.data.id);
      inFlight[index] = (inFlight[index] ?? 1) - 1;
      entry?.resolve(unpackBatch(event.data.batch));
    };
    worker.onerror = (event) => {
      const error = new Error(`grep worker failed: ${event.message}`);
      for (const [id, entry] of pending) {
        if (owner.get(id) === index) {
          pending.delete(id);
          entry.reject(error);
        }
      }
    };
    inFlight.push(0);
    return worker;
  });
  return {
    get ready() {
      return booted === workers.length;
    },
    run(files) {
      if (closed) return Promise.reject(closed.reason);
      const id = nextId++;
      let target = 0;
      for (let index = 1; index < workers.length; index += 1) {
        if (inFlight[index]! < inFlight[target]!) target = index;
      }
      inFlight[target] = inFlight[target]! + 1;
      owner.set(id, target);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const batch: GrepWorkerRequest = { type: 'batch', id, files };
        workers[target]!.postMessage(batch);
      });
    },
    close(reason) {
      if (closed) return;
      closed = { reason };
      for (const worker of workers) worker.terminate();
      for (const entry of pending.values()) entry.reject(reason);
      pending.clear();
    },
  };
}
