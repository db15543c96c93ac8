/**
 * A compact wire form of one file's grep outcome for worker messages: line numbers in a typed array and
 * the matching lines joined by `\n` (a line never contains one). Structured-cloning a million small
 * objects costs more than the search itself; two arrays and a string clone at memcpy speed.
 */
import type { FileSearchOutcome, FileSearchStatus } from './search-file.ts';

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
