/**
 * A compact wire form of a batch's grep outcomes for worker messages: numbers in typed arrays and the
 * matching lines joined by `\n` (a line never contains one). Structured-cloning a million small objects
 * costs more than the search itself; a few arrays and strings clone at memcpy speed.
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

const STATUSES: readonly FileSearchStatus[] = ['searched', 'binary', 'too_large', 'unreadable'];

/**
 * A batch result in wire form: every notable outcome's fields laid end to end in a few typed arrays and
 * strings, so a batch clones as about ten values however many files it names (one object per file,
 * each with its own typed array, took ~16 ms to cross for the ~3300 files with matches of a 5000-match
 * search, a quarter of the search).
 */
export interface PackedBatch {
  searched: number;
  /** For each notable outcome: searched files before it, its status (index in STATUSES), whether more. */
  searchedBefore: Int32Array;
  statuses: Uint8Array;
  more: Uint8Array;
  /** The notable outcomes' files, NUL-separated (no path holds a NUL). */
  files: string;
  /** For each notable outcome, how many matches and unsearched lines it has. */
  matchCounts: Int32Array;
  unsearchedCounts: Int32Array;
  /** Every match's line number and text (joined by `\n`: a line never holds one), outcome by outcome. */
  lines: Int32Array;
  texts: string;
  unsearched: Int32Array;
}

/** True when an outcome has something to report (most files have not). */
export function isNotable(outcome: FileSearchOutcome): boolean {
  return outcome.status !== 'searched' || outcome.matches.length > 0 || outcome.unsearchedLines.length > 0;
}

/**
 * Searches `files` in order with `search` and keeps only the notable outcomes; stops once the batch
 * holds more than `room` matching lines (the search needs no file after the one that proves its cap
 * was passed).
 */
export function summarizeBatch(
  files: string[],
  search: (file: string) => FileSearchOutcome,
  room = Number.POSITIVE_INFINITY,
): BatchResult {
  const result: BatchResult = { searched: 0, notable: [], searchedBefore: [] };
  let matched = 0;
  for (const file of files) {
    if (matched > room) break;
    const outcome = search(file);
    matched += outcome.matches.length;
    if (isNotable(outcome)) {
      result.notable.push(outcome);
      result.searchedBefore.push(result.searched);
    }
    if (outcome.status === 'searched') result.searched += 1;
  }
  return result;
}

export function packBatch(result: BatchResult): PackedBatch {
  const { notable } = result;
  let matchTotal = 0;
  let unsearchedTotal = 0;
  for (const outcome of notable) {
    matchTotal += outcome.matches.length;
    unsearchedTotal += outcome.unsearchedLines.length;
  }
  const packed: PackedBatch = {
    searched: result.searched,
    searchedBefore: Int32Array.from(result.searchedBefore),
    statuses: new Uint8Array(notable.length),
    more: new Uint8Array(notable.length),
    files: notable.map((outcome) => outcome.file).join('\0'),
    matchCounts: new Int32Array(notable.length),
    unsearchedCounts: new Int32Array(notable.length),
    lines: new Int32Array(matchTotal),
    texts: '',
    unsearched: new Int32Array(unsearchedTotal),
  };
  const texts: string[] = [];
  let line = 0;
  let unsearched = 0;
  notable.forEach((outcome, index) => {
    packed.statuses[index] = STATUSES.indexOf(outcome.status);
    packed.more[index] = outcome.more ? 1 : 0;
    packed.matchCounts[index] = outcome.matches.length;
    packed.unsearchedCounts[index] = outcome.unsearchedLines.length;
    for (const match of outcome.matches) {
      packed.lines[line++] = match.line;
      texts.push(match.text);
    }
    for (const number of outcome.unsearchedLines) packed.unsearched[unsearched++] = number;
  });
  packed.texts = texts.join('\n');
  return packed;
}

export function unpackBatch(packed: PackedBatch): BatchResult {
  const count = packed.statuses.length;
  const files = count === 0 ? [] : packed.files.split('\0');
  const texts = packed.lines.length === 0 ? [] : packed.texts.split('\n');
  const notable: FileSearchOutcome[] = [];
  let line = 0;
  let unsearched = 0;
  for (let index = 0; index < count; index += 1) {
    const matchCount = packed.matchCounts[index] as number;
    const matches = new Array(matchCount);
    for (let match = 0; match < matchCount; match += 1, line += 1) {
      matches[match] = { line: packed.lines[line] as number, text: texts[line] as string };
    }
    const unsearchedCount = packed.unsearchedCounts[index] as number;
    notable.push({
      file: files[index] as string,
      status: STATUSES[packed.statuses[index] as number] as FileSearchStatus,
      more: packed.more[index] === 1,
      matches,
      unsearchedLines: Array.from(packed.unsearched.subarray(unsearched, unsearched + unsearchedCount)),
    });
    unsearched += unsearchedCount;
  }
  return { searched: packed.searched, notable, searchedBefore: Array.from(packed.searchedBefore) };
}
