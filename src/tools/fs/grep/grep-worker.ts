/**
 * Worker thread for grep: rebuilds the matcher from its spec and searches batches of files. Used for the
 * JavaScript engine (so a catastrophic pattern can be stopped by terminating the worker) and to use more
 * than one core on big trees. Messages: `init` with the call's GrepOptions as the tool built them (and how files are opened), then
 * `batch` with files to search (NUL-joined), answered by `batch` with a PackedBatch; `init` is acknowledged with
 * `ready` once the matcher is built.
 */
import type { GrepOptions } from './grep-options.ts';
import { type PackedBatch, packBatch, summarizeBatch } from './packed-outcome.ts';
import { type FileOpening, searchFileSync } from './search-file.ts';
import { createTextSearcher, type TextSearcher } from './text-searcher.ts';

declare const self: Worker;

export type GrepWorkerRequest =
  | {
      type: 'init';
      options: GrepOptions;
      opening: FileOpening;
      /**
       * A thread kept between searches (batch-executors.ts): its search's number and the shared slot
       * holding the current one. A batch that arrives once the slot moved on belongs to a search that
       * ended, and is dropped unanswered.
       */
      generation?: { shared: Int32Array; value: number };
    }
  /**
   * The files as one string, NUL-separated (no path holds a NUL): one string clones at memcpy speed,
   * where an array of paths cost about 1.7 µs a path to post (profiled on the 50 000-file tree).
   */
  | { type: 'batch'; id: number; files: string; room?: number };

export type GrepWorkerReply = { type: 'ready' } | { type: 'batch'; id: number; batch: PackedBatch };

let started:
  | {
      searcher: TextSearcher;
      options: GrepOptions;
      opening: FileOpening;
      generation?: { shared: Int32Array; value: number } | undefined;
    }
  | undefined;

function reply(message: GrepWorkerReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<GrepWorkerRequest>) => {
  const message = event.data;
  if (message.type === 'init') {
    const { options, opening, generation } = message;
    started = {
      searcher: createTextSearcher(options.spec, { offMainThread: true }),
      options,
      opening,
      generation,
    };
    reply({ type: 'ready' });
    return;
  }
  const { searcher, options, opening, generation } = started!;
  // A kept thread drops the rest of a search that ended, checked before each file (an atomic load).
  const ended = () => generation !== undefined && Atomics.load(generation.shared, 0) !== generation.value;
  let dropped = false;
  const batch = summarizeBatch(
    message.files.split('\0'),
    (file) => {
      if (dropped || ended()) {
        dropped = true;
        return { file, status: 'searched', matches: [], more: false, unsearchedLines: [] };
      }
      return searchFileSync(file, searcher, options, opening);
    },
    message.room,
  );
  if (!dropped) reply({ type: 'batch', id: message.id, batch: packBatch(batch) });
};
