/**
 * The grep search loop: walk the root incrementally through held directories (files only, symlinks not
 * followed, filtered by the optional glob with Bun.Glob's matcher), check each candidate against the
 * access policy, search batches of files, and merge the outcomes in walk order until `maxResults` matching lines
 * are collected (one match past the cap proves `truncated`).
 *
 * Linear engines start in the calling thread, yielding after every batch. A pool of workers takes over
 * where it pays or is required (see docs/decisions/2026-11-30-grep-engine.md): the JavaScript engine,
 * large `maxFileSizeBytes`, and every search on a machine with more than one core once the walk passes
 * {@link WORKER_PREWARM_FILE_COUNT} files and the pool has booted (threads kept booted from an earlier
 * search, in a file worker, take over past {@link KEPT_THREADS_FILE_COUNT}). Workers are terminated when
 * the call's signal fires.
 */
import { HeldDirectory } from '../../../descriptors/held-directory.ts';
import { describeSystemError } from '../describe-system-error.ts';
import { searchThreadCount } from '../thread-program.ts';
import { walkFiles } from '../walk-files.ts';
import {
  type BatchExecutor,
  createInProcessExecutor,
  createWorkerExecutor,
  type WorkerExecutor,
} from './batch-executors.ts';
import type { GrepOptions } from './grep-options.ts';
import type { BatchResult } from './packed-outcome.ts';
import type { FileOpening, FileSearchOutcome } from './search-file.ts';

/**
 * Files walked before the worker pool starts booting (~15 ms) while the calling thread keeps searching;
 * small trees never pay for threads.
 */
export const WORKER_PREWARM_FILE_COUNT = 1024;
/**
 * Files the calling thread searches before kept threads (already booted) take over: a search that ends
 * within them (a common pattern cut at maxResults) pays no hand-off to threads.
 */
export const KEPT_THREADS_FILE_COUNT = 256;
/** Files searched in the calling thread at most before the rest of a walk moves to workers. */
export const IN_PROCESS_FILE_LIMIT = 4096;
/** Largest maxFileSizeBytes searched in the calling thread (a linear engine needs ~10 ms per MiB). */
export const IN_PROCESS_MAX_FILE_BYTES = 4 * 1024 * 1024;
const BATCH_SIZE = 128;
/** Batches sent to workers are bigger: fewer messages (measured 5-10% faster than 128). */
const WORKER_BATCH_SIZE = 512;
/** The first batch is smaller, and each next one twice as big up to the limit: first matches come sooner. */
const FIRST_BATCH_SIZE = 16;
const MAX_BATCHES_IN_FLIGHT = 8;

/** Where one grep call searches, and how it is stopped: what the call's path and policy decided. */
export interface GrepSearchScope {
  /**
   * Real absolute directory to walk, or the file to search. A component swapped for a link since it was
   * resolved fails the search (described as the path changing while the tool used it).
   */
  root: string;
  /** How errors name the search root (the model's spelling); `root` when omitted. */
  shown?: string;
  rootIsFile: boolean;
  signal: AbortSignal;
  /** The access policy's check of a candidate file's absolute (real) path. */
  allows: (absolute: string) => boolean;
  /** Directories the walk does not enter at all (the protected set). */
  skipsDirectory?: (absolute: string) => boolean;
  /** `auto` (default): workers past IN_PROCESS_FILE_LIMIT files; a number forces that many workers. */
  workers?: 'auto' | number;
  /** How each file is opened (search-file.ts); `verified` unless the caller knows better. */
  opening?: FileOpening;
  /**
   * Keep the threads booted for the next search (batch-executors.ts), and hand the search to them once
   * the walk passes {@link KEPT_THREADS_FILE_COUNT} files: a confined file worker's choice, whose
   * threads may outlive a call.
   */
  keepThreads?: boolean;
}

export interface GrepSearchOutcome {
  /** Outcomes of the files searched, in walk order, cut at maxResults lines. */
  files: FileSearchOutcome[];
  filesScanned: number;
  /** More matching lines existed than maxResults allowed. */
  hitMaxResults: boolean;
}

export async function runGrepSearch(
  options: GrepOptions,
  scope: GrepSearchScope,
): Promise<GrepSearchOutcome> {
  // A signal that fired before the search began (while the path was resolved) fires no listener.
  if (scope.signal.aborted) throw scope.signal.reason;
  const poolSize = searchThreadCount();
  const forcedWorkers = typeof scope.workers === 'number' ? scope.workers : undefined;
  const keep = scope.keepThreads === true;
  // Big files could hold the event loop for too long even with a linear engine: search them off-thread.
  const needsWorkers =
    options.spec.engine === 'javascript' ||
    (forcedWorkers ?? 0) > 0 ||
    (scope.workers !== 0 && options.maxFileSizeBytes > IN_PROCESS_MAX_FILE_BYTES);
  const opening = scope.opening ?? 'verified';
  let executor: BatchExecutor = needsWorkers
    ? createWorkerExecutor(options, forcedWorkers ?? poolSize, opening, keep)
    : createInProcessExecutor(options, opening);
  let usingWorkers = needsWorkers;
  // Measured (docs/decisions/2026-11-30-grep-engine.md): once batches travel compactly, two workers beat
  // the calling thread for every engine on a big tree (they read and search on both cores while this
  // thread walks), and regexes without a prefilter also gain the workers' guarded JavaScript scan.
  const benefitsFromWorkers = poolSize > 1;
  /** The pool booting while the calling thread still searches (see WORKER_PREWARM_FILE_COUNT). */
  let pool: WorkerExecutor | undefined =
    keep && !needsWorkers && scope.workers !== 0 && benefitsFromWorkers && !scope.rootIsFile
      ? createWorkerExecutor(options, poolSize, opening, true)
      : undefined;
  /** Files walked before a booted pool takes over. */
  const switchAt = keep ? KEPT_THREADS_FILE_COUNT : 0;
  const onAbort = () => {
    executor.close(scope.signal.reason);
    pool?.close(scope.signal.reason);
  };
  scope.signal.addEventListener('abort', onAbort, { once: true });

  const result: GrepSearchOutcome = { files: [], filesScanned: 0, hitMaxResults: false };
  let collected = 0;
  let done = false;
  const queue: Promise<BatchResult>[] = [];
  /** The walk's root directory, closed when the search ends. */
  let held: HeldDirectory | undefined;

  const consume = async () => {
    const batch = await queue.shift()!;
    if (done) return;
    let counted = 0;
    for (const [position, outcome] of batch.notable.entries()) {
      // Searched files without matches before this one (they are not sent, only counted).
      result.filesScanned += batch.searchedBefore[position]! - counted;
      counted = batch.searchedBefore[position]!;
      if (outcome.status !== 'searched') {
        if (outcome.status === 'too_large' || scope.rootIsFile) result.files.push(outcome);
        continue;
      }
      result.filesScanned += 1;
      counted += 1;
      if (outcome.matches.length === 0 && outcome.unsearchedLines.length === 0) continue;
      if (collected === options.maxResults && outcome.matches.length > 0) {
        // One match past the cap proves there is more; stop here.
        result.hitMaxResults = true;
        done = true;
        return;
      }
      const room = options.maxResults - collected;
      if (outcome.matches.length > room) {
        outcome.matches = outcome.matches.slice(0, room);
        result.hitMaxResults = true;
      }
      collected += outcome.matches.length;
      result.files.push(outcome);
      if (result.hitMaxResults) {
        done = true;
        return;
      }
    }
    result.filesScanned += batch.searched - counted;
  };

  try {
    if (scope.rootIsFile) {
      queue.push(executor.run([scope.root]));
    } else {
      let batch: string[] = [];
      let batchSize = FIRST_BATCH_SIZE;
      let walked = 0;
      /** `last`: the walk is over, so a pool not booted yet would not pay. */
      const flush = async (last: boolean) => {
        if (batch.length === 0) return;
        if (!usingWorkers && scope.workers !== 0 && benefitsFromWorkers) {
          if (pool === undefined && !last && walked > WORKER_PREWARM_FILE_COUNT)
            pool = createWorkerExecutor(options, poolSize, opening, keep);
          if (pool !== undefined && ((pool.ready && walked > switchAt) || walked > IN_PROCESS_FILE_LIMIT)) {
            const previous = executor;
            executor = pool;
            pool = undefined;
            usingWorkers = true;
            previous.close();
          }
        }
        queue.push(executor.run(batch, options.maxResults - collected));
        batch = [];
        batchSize = Math.min(usingWorkers ? WORKER_BATCH_SIZE : BATCH_SIZE, batchSize * 2);
        while (queue.length >= (usingWorkers ? MAX_BATCHES_IN_FLIGHT : 1) && !done) await consume();
      };
      let root: HeldDirectory;
      try {
        root = HeldDirectory.open(scope.root);
      } catch (error) {
        throw describeSystemError(error, 'search', scope.shown ?? scope.root);
      }
      held = root;
      for (const [absolute] of walkFiles(root, {
        dot: options.dot,
        glob: options.glob,
        ...(scope.skipsDirectory === undefined ? {} : { skipsDirectory: scope.skipsDirectory }),
      })) {
        if (done) break;
        if (scope.signal.aborted) throw scope.signal.reason;
        if (!scope.allows(absolute)) continue;
        batch.push(absolute);
        walked += 1;
        if (batch.length === batchSize) await flush(false);
      }
      if (!done) await flush(true);
    }
    while (queue.length > 0 && !done) await consume();
    if (scope.signal.aborted) throw scope.signal.reason;
    return result;
  } finally {
    scope.signal.removeEventListener('abort', onAbort);
    held?.close();
    executor.close();
    pool?.close();
    // Batches still in flight after an early stop are not needed; keep their rejections quiet.
    for (const pending of queue) pending.catch(() => {});
  }
}
