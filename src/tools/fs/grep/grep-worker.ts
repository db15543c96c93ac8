/**
 * Worker thread for grep: rebuilds the matcher from its spec and searches batches of files. Used for the
 * JavaScript engine (so a catastrophic pattern can be stopped by terminating the worker) and to use more
 * than one core on big trees. Messages: `{type: 'init', spec, maxFileSizeBytes, maxMatchesPerFile}` then
 * `{type: 'batch', id, files}`, answered by `{type: 'batch', id, batch}` (a PackedBatch); `init` is
 * acknowledged with `{type: 'ready'}` once the matcher is built.
 */
import { packBatch, summarizeBatch } from './packed-outcome.ts';
import { searchFileSync } from './search-file.ts';
import { createTextSearcher, type GrepMatcherSpec, type TextSearcher } from './text-searcher.ts';

declare const self: Worker;

export type GrepWorkerRequest =
  | {
      type: 'init';
      spec: GrepMatcherSpec;
      maxFileSizeBytes: number;
      maxMatchesPerFile: number;
    }
  | { type: 'batch'; id: number; files: string[] };

let searcher: TextSearcher | undefined;
let maxFileSizeBytes = 0;
let maxMatchesPerFile = 0;

self.onmessage = (event: MessageEvent<GrepWorkerRequest>) => {
  const message = event.data;
  if (message.type === 'init') {
    searcher = createTextSearcher(message.spec, { offMainThread: true });
    maxFileSizeBytes = message.maxFileSizeBytes;
    maxMatchesPerFile = message.maxMatchesPerFile;
    self.postMessage({ type: 'ready' });
    return;
  }
  const active = searcher!;
  const batch = summarizeBatch(message.files, (file) =>
    searchFileSync(file, active, maxFileSizeBytes, maxMatchesPerFile),
  );
  self.postMessage({ type: 'batch', id: message.id, batch: packBatch(batch) });
};
