/**
 * The literal engine's search: a pattern that is a literal or an alternation of literals is found with
 * one JavaScript RegExp of those literals (no quantifiers, so linear), on the raw bytes whenever that
 * finds the same occurrences, and a single case-sensitive literal with Buffer.indexOf. Only candidate
 * lines are decoded. The re2 engine uses the same search as its prefilter.
 */
import { decode, emptyResult, searchByHits, type TextSearchResult } from './line-scan.ts';

/** The bytes as a Latin-1 string: one character per byte, so indices are byte offsets (no decoding). */
function asLatin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
}

function isAscii(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) if (value.charCodeAt(index) > 0x7f) return false;
  return true;
}

/**
 * A literal RegExp over the raw bytes: each literal is spelled as its UTF-8 bytes in Latin-1, which
 * finds exactly the same occurrences (UTF-8 is self-synchronising). Case-insensitive search works on the
 * bytes only for ASCII literals; otherwise the text is decoded first.
 */
export interface LiteralHits {
  hits: RegExp;
  onBytes: boolean;
  /** A single case-sensitive literal as UTF-8 bytes: searched with Buffer.indexOf (memmem speed). */
  needle: Buffer | undefined;
}

export function createLiteralHits(literals: string[], caseInsensitive: boolean): LiteralHits {
  const onBytes = !caseInsensitive || literals.every(isAscii);
  const spelled = onBytes
    ? literals.map((literal) => Buffer.from(literal, 'utf8').toString('latin1'))
    : literals;
  return {
    hits: new RegExp(spelled.map(escapeRegExp).join('|'), caseInsensitive ? 'gi' : 'g'),
    onBytes,
    needle: literals.length === 1 && !caseInsensitive ? Buffer.from(literals[0]!, 'utf8') : undefined,
  };
}

/** The lines holding a hit of `literal` that `accept` agrees with (all of them without `accept`). */
export function searchLiteralHits(
  literal: LiteralHits,
  bytes: Uint8Array,
  maxMatches: number,
  accept: ((line: string) => boolean) | undefined,
): TextSearchResult {
  if (literal.needle !== undefined) return searchNeedle(literal.needle, bytes, maxMatches, accept);
  if (literal.onBytes) {
    const haystack = asLatin1(bytes);
    return searchByHits(haystack, literal.hits, maxMatches, accept, (start, end) =>
      decode(bytes.subarray(start, end)),
    );
  }
  const text = decode(bytes);
  return searchByHits(text, literal.hits, maxMatches, accept, (start, end) => text.slice(start, end));
}

const NEWLINE = 0x0a;

/**
 * The byte-level literal search: Buffer.indexOf finds the needle's UTF-8 bytes in the raw file (exact,
 * since UTF-8 is self-synchronising and the needle holds no newline), line bounds and line numbers come
 * from newline bytes, and only candidate lines are decoded. Nothing is decoded for a file without a hit.
 */
function searchNeedle(
  needle: Buffer,
  bytes: Uint8Array,
  maxMatches: number,
  accept: ((line: string) => boolean) | undefined,
): TextSearchResult {
  const result = emptyResult();
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let hit = haystack.indexOf(needle);
  let lineNumber = 1;
  /** Every newline before this offset has been counted into lineNumber. */
  let counted = 0;
  while (hit !== -1) {
    // lastIndexOf with a negative offset would count from the end: a hit at 0 starts the first line.
    const start = hit === 0 ? 0 : haystack.lastIndexOf(NEWLINE, hit - 1) + 1;
    const newline = haystack.indexOf(NEWLINE, hit);
    const end = newline === -1 ? haystack.length : newline;
    const line = decode(bytes.subarray(start, end));
    if (accept === undefined || accept(line)) {
      if (result.matches.length === maxMatches) {
        result.more = true;
        break;
      }
      for (let next = haystack.indexOf(NEWLINE, counted); next !== -1 && next < start; ) {
        lineNumber += 1;
        next = haystack.indexOf(NEWLINE, next + 1);
      }
      counted = start;
      result.matches.push({ line: lineNumber, text: line });
    }
    if (newline === -1) break;
    hit = haystack.indexOf(needle, newline + 1);
  }
  return result;
}

export function escapeRegExp(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
