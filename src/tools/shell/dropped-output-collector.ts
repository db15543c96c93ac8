/**
 * Keeps the memory of drained output flat: bytes past the cap are drained and dropped, never
 * buffered, so a command printing 2 GB keeps the server's memory flat.
 *
 * Dropping a chunk is not enough on Bun: every chunk a subprocess pipe delivers is a fresh buffer, and
 * it is only returned when the garbage collector gets to it. Unloaded, the collector keeps up (~25–35 MB
 * of RSS growth while a command prints 2 GB); on a loaded machine it lags, and growth reached 84 MB. So
 * the readers report every dropped byte here, and after every `intervalBytes` dropped in the whole
 * process (all streams of all calls together, so concurrent drains share one budget) this runs one
 * synchronous full collection: the garbage of drained output is bounded by the interval (stretched only
 * while the pause bound below holds a collection back), whatever the collector's own timing.
 *
 * Why this and not a reused buffer: Bun 1.4.5's subprocess streams (and `Bun.file(fd).stream()`) reject
 * BYOB readers ("requires a ReadableStream with an underlying byte source"), and reading a pipe fd we
 * create with `fs.read` into one Buffer blocks a thread of the shared file-system pool per pending read
 * (4 idle commands delayed an unrelated `readFile` by 2 s). Measured, 2 GB at a 1 KB cap under two busy
 * `yes` loads, max peak RSS growth over 10 runs: no hint 34 MiB (84 MiB seen once); `Bun.gc(false)`
 * every 8 MB 66 MiB; bun:jsc `edenGC()` every 4–16 MB 72 MiB; `Bun.gc(true)` every 32 MB 15 MiB, and
 * 21 MiB with the pause bound below. The price is paid only past the cap: draining runs ~25 % slower
 * than a bare read-and-drop (bench/shell.bench.ts), which itself grew RSS by 60–95 MiB per 512 MiB.
 */

/** Told about output bytes that were read and dropped past a cap. */
export interface DroppedOutputCollector {
  noteDropped(byteCount: number): void;
}

/** Bytes dropped (process-wide) between two collections. */
export const DROPPED_BYTES_PER_COLLECTION = 32 * 1024 * 1024;

/**
 * After a collection that took T ms, the next one waits at least this many times T: collections for
 * drained output take at most 1 / (1 + this) of the wall time (20 %), so a big heap (a full collection of
 * a 240 MB heap takes ~150 ms) is not stalled by them; it then falls back towards the collector's own
 * pace instead.
 */
export const COLLECTION_PAUSE_FACTOR = 4;

export interface DroppedOutputCollectorOptions {
  /** Runs one collection; defaults to a synchronous full collection (`Bun.gc(true)`). */
  collect?: () => void;
  /** Dropped bytes between two collections; defaults to DROPPED_BYTES_PER_COLLECTION. */
  intervalBytes?: number;
  /** Monotonic milliseconds; defaults to `performance.now`. */
  now?: () => number;
}

/**
 * A collector that runs `collect` once `intervalBytes` were dropped since the previous run and at least
 * COLLECTION_PAUSE_FACTOR times that run's duration has passed since it ended.
 */
export function createDroppedOutputCollector(
  options: DroppedOutputCollectorOptions = {},
): DroppedOutputCollector {
  const collect = options.collect ?? (() => Bun.gc(true));
  const intervalBytes = options.intervalBytes ?? DROPPED_BYTES_PER_COLLECTION;
  const now = options.now ?? (() => performance.now());
  let droppedSinceCollection = 0;
  let nextCollectionAllowedAt = Number.NEGATIVE_INFINITY;
  return {
    noteDropped(byteCount) {
      droppedSinceCollection += byteCount;
      if (droppedSinceCollection < intervalBytes) return;
      const startedAt = now();
      if (startedAt < nextCollectionAllowedAt) return;
      droppedSinceCollection = 0;
      collect();
      const endedAt = now();
      nextCollectionAllowedAt = endedAt + (endedAt - startedAt) * COLLECTION_PAUSE_FACTOR;
    },
  };
}

/** The process-wide collector every capped stream reports to unless told otherwise. */
export const defaultDroppedOutputCollector: DroppedOutputCollector = createDroppedOutputCollector();
