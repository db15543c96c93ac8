/**
 * A compact wire form of one file's grep outcome for worker messages: line numbers in a typed array and
 * the matching lines joined by `\n` (a line never contains one). Structured-cloning a million small
 * objects costs more than the search itself; two arrays and a string clone at memcpy speed.
 */
import type { FileSearchOutcome, FileSearchStatus } from './search-file.ts';

/**
 * What a batch yields: most files have nothing to report, so only the notable outcomes travel (matches,
 * unsearched lines, or a status other than `searched`), with enough counts to keep `filesScanned` exact.
 */
export interface BatchResult {
  /** Files of the batch that were searched (status `searched`). */
  searched: number;
  /** Notable outcomes in walk order. */
  notable: FileSearchOutcome[];
  /** For each notable outcome, how many searched files precede it in the batch. */
  searchedBefore: number[];
}

export interface PackedOutcome {
  file: string;
  status: FileSearchStatus;
  more: boolean;
  lines: Int32Array;
  texts: string;
  unsearchedLines: number[];
}

export function packOutcome(outcome: FileSearchOutcome): PackedOutcome {
  return {
    file: outcome.file,
    status: outcome.status,
    more: outcome.more,
    lines: Int32Array.from(outcome.matches, (match) => match.line),
    texts: outcome.matches.map((match) => match.text).join('\n'),
    unsearchedLines: outcome.unsearchedLines,
  };
}

export function unpackOutcome(packed: PackedOutcome): FileSearchOutcome {
  const texts = packed.lines.length === 0 ? [] : packed.texts.split('\n');
  return {
    file: packed.file,
    status: packed.status,
    more: packed.more,
    matches: Array.from(packed.lines, (line, index) => ({ line, text: texts[index]! })),
    unsearchedLines: packed.unsearchedLines,
  };
}

/** A batch result in wire form. */
export interface PackedBatch {
  searched: number;
  notable: PackedOutcome[];
  searchedBefore: number[];
}

/** True when an outcome has something to report (most files have not). */
export function isNotable(outcome: FileSearchOutcome): boolean {
  return outcome.status !== 'searched' || outcome.matches.length > 0 || outcome.unsearchedLines.length > 0;
}

/** Searches `files` in order with `search` and keeps only the notable outcomes. */
export function summarizeBatch(files: string[], search: (file: string) => FileSearchOutcome): BatchResult {
  const result: BatchResult = { searched: 0, notable: [], searchedBefore: [] };
  for (const file of files) {
    const outcome = search(file);
    if (isNotable(outcome)) {
      result.notable.push(outcome);
      result.searchedBefore.push(result.searched);
    }
    if (outcome.status === 'searched') result.searched += 1;
  }
  return result;
}

export function packBatch(result: BatchResult): PackedBatch {
  return {
    searched: result.searched,
    notable: result.notable.map(packOutcome),
    searchedBefore: result.searchedBefore,
  };
}

export function unpackBatch(packed: PackedBatch): BatchResult {
  return {
    searched: packed.searched,
    notable: packed.notable.map(unpackOutcome),
    searchedBefore: packed.searchedBefore,
  };
}
