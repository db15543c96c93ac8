/**
 * Worker thread for grep: rebuilds the matcher from its spec and searches batches of files. Used for the
 * JavaScript engine (so a catastrophic pattern can be stopped by terminating the worker) and to use more
 * than one core on big trees. Messages: `init` with the call's GrepOptions as the tool built them (and how files are opened), then
 * `batch` with files to search, answered by `batch` with a PackedBatch; `init` is acknowledged with
 * `ready` once the matcher is built.
 */
import type { GrepOptions } from './grep-options.ts';
import { type PackedBatch, packBatch, summarizeBatch } from './packed-outcome.ts';
import { type FileOpening, searchFileSync } from './search-file.ts';
import { createTextSearcher, type TextSearcher } from './text-searcher.ts';

declare const self: Worker;

export type GrepWorkerRequest =
  | { type: 'init'; options: GrepOptions; opening: FileOpening }
  | { type: 'batch'; id: number; files: string[] };

export type GrepWorkerReply = { type: 'ready' } | { type: 'batch'; id: number; batch: PackedBatch };

let started: { searcher: TextSearcher; options: GrepOptions; opening: FileOpening } | undefined;

function reply(message: GrepWorkerReply): void {
  self.postMessage(message);
}

self.onmessage = (event: MessageEvent<GrepWorkerRequest>) => {
  const message = event.data;
  if (message.type === 'init') {
    const { options, opening } = message;
    started = { searcher: createTextSearcher(options.spec, { offMainThread: true }), options, opening };
    reply({ type: 'ready' });
    return;
  }
  const { searcher, options, opening } = started!;
  const batch = summarizeBatch(message.files, (file) => searchFileSync(file, searcher, options, opening));
  reply({ type: 'batch', id: message.id, batch: packBatch(batch) });
};
