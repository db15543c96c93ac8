/**
 * Searching one file for grep, the same in the main thread and in a worker: one descriptor opened
 * `O_RDONLY | O_NONBLOCK | O_NOCTTY` at the file's real path with links refused on every component
 * (`HeldDirectory.openPath`: a FIFO swapped in during the walk cannot block the thread, and a component
 * swapped for a symlink since the walk listed it fails the open, so nothing is read anywhere the access
 * policy never saw; no per-file check of the descriptor's location is needed), `fstat` showing a regular
 * file before a byte is read (anything else is skipped), a size ceiling on the bytes read (not on what
 * stat claims), the binary probe shared with read_file, then the text
 * searcher. Synchronous on purpose: a worker has nothing else to do, and the main thread calls it for one
 * file at a time between yields.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { HeldDirectory } from '../../../descriptors/held-directory.ts';
import { looksBinary } from '../binary-probe.ts';
import type { GrepOptions } from './grep-options.ts';
import type { LineMatch, TextSearcher } from './text-searcher.ts';

export type FileSearchStatus = 'searched' | 'binary' | 'too_large' | 'unreadable';

export interface FileSearchOutcome {
  /** Absolute real path as given. */
  file: string;
  status: FileSearchStatus;
  matches: LineMatch[];
  more: boolean;
  unsearchedLines: number[];
}

/**
 * How a file is opened: `verified` refuses a link on every component of its path (`openat2` with
 * `RESOLVE_NO_SYMLINKS`); `direct` refuses one as the last component only (`O_NOFOLLOW`), for a
 * confined file worker where the mount namespace bounds what any component can lead to (see
 * grep-files.ts, `directOpenIsBounded`).
 */
export type FileOpening = 'verified' | 'direct';

/** Reuses one read buffer per thread; it grows to `maxFileSizeBytes + 1` at most. */
let buffer = new Uint8Array(0);

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;
const DIRECT_OPEN_FLAGS = OPEN_FLAGS | constants.O_NOFOLLOW;

function openFile(file: string, opening: FileOpening): number {
  return opening === 'direct' ? openSync(file, DIRECT_OPEN_FLAGS) : HeldDirectory.openPath(file, OPEN_FLAGS);
}

function searched(file: string): FileSearchOutcome {
  return { file, status: 'searched', matches: [], more: false, unsearchedLines: [] };
}

/** `file` is a real absolute path: a path through any symlink is unreadable. */
export function searchFileSync(
  file: string,
  searcher: TextSearcher,
  limits: Pick<GrepOptions, 'maxFileSizeBytes' | 'maxMatchesPerFile'>,
  opening: FileOpening = 'verified',
): FileSearchOutcome {
  const { maxFileSizeBytes, maxMatchesPerFile } = limits;
  const outcome = searched(file);
  let descriptor: number;
  try {
    descriptor = openFile(file, opening);
  } catch {
    outcome.status = 'unreadable';
    return outcome;
  }
  let length = 0;
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) {
      outcome.status = 'unreadable';
      return outcome;
    }
    if (stats.size > maxFileSizeBytes) {
      outcome.status = 'too_large';
      return outcome;
    }
    // Read what fstat reported and no more: one read per file instead of a second read that only
    // confirms the end, and a file that grows meanwhile is searched as it was (never past the ceiling,
    // since stats.size <= maxFileSizeBytes). A file that shrank ends early at a zero-byte read. A size of
    // 0 may be a lie (procfs and friends report 0 for generated content): such a file is read to its end,
    // bounded by the ceiling, so nothing is skipped silently.
    const sizeKnown = stats.size > 0;
    const wanted = sizeKnown ? stats.size : maxFileSizeBytes + 1;
    while (length < wanted) {
      if (length === buffer.length) {
        // Grow (the buffer is kept for the next file): to the whole file when its size is known.
        const size = Math.min(
          maxFileSizeBytes + 1,
          Math.max(buffer.length * 2, 1 << 16, sizeKnown ? wanted : 0),
        );
        const grown = new Uint8Array(size);
        grown.set(buffer.subarray(0, length));
        buffer = grown;
      }
      const bytesRead = readSync(
        descriptor,
        buffer,
        length,
        Math.min(buffer.length, wanted) - length,
        length,
      );
      if (bytesRead === 0) break;
      length += bytesRead;
    }
  } catch {
    outcome.status = 'unreadable';
    return outcome;
  } finally {
    closeSync(descriptor);
  }
  if (length > maxFileSizeBytes) {
    outcome.status = 'too_large';
    return outcome;
  }
  const bytes = buffer.subarray(0, length);
  if (looksBinary(bytes)) {
    outcome.status = 'binary';
    return outcome;
  }
  const result = searcher(bytes, maxMatchesPerFile);
  outcome.matches = result.matches;
  outcome.more = result.more;
  outcome.unsearchedLines = result.unsearchedLines;
  return outcome;
}
