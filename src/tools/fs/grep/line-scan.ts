/**
 * Line-by-line scanning shared by every grep engine: the result shape, line bounds and numbers counted
 * forward through a text, and the two walks a search is built from — over the hits of a linear literal
 * RegExp (one candidate line per hit) and over every line. A walk stops at `maxMatches` and says there
 * was more, so no engine collects lines it will not return.
 */

export interface LineMatch {
  line: number;
  text: string;
}

export interface TextSearchResult {
  matches: LineMatch[];
  /** The file had more matching lines than `maxMatches`. */
  more: boolean;
  /** Lines where a JavaScript-engine give-up could not be excluded. */
  unsearchedLines: number[];
}

const utf8 = new TextDecoder();

/** The bytes as UTF-8 text. */
export function decode(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** Counts lines incrementally as the search moves forward through a text. */
export class LineCounter {
  #position = 0;
  #line = 1;
  constructor(private readonly text: string) {}
  /** 1-based number of the line holding `index`; calls must not go backwards. */
  lineAt(index: number): number {
    let newline = this.text.indexOf('\n', this.#position);
    while (newline !== -1 && newline < index) {
      this.#line += 1;
      newline = this.text.indexOf('\n', newline + 1);
    }
    this.#position = index;
    return this.#line;
  }
}

/** Start and end (exclusive, before its newline) of the line holding `index`. */
export function lineBounds(text: string, index: number): [number, number] {
  const start = text.lastIndexOf('\n', index - 1) + 1;
  const newline = text.indexOf('\n', index);
  return [start, newline === -1 ? text.length : newline];
}

export function emptyResult(): TextSearchResult {
  return { matches: [], more: false, unsearchedLines: [] };
}

/**
 * Walks the hits of a linear literal RegExp, one candidate line per hit, and keeps the lines `accept`
 * agrees with.
 */
export function searchByHits(
  text: string,
  hits: RegExp,
  maxMatches: number,
  accept: ((line: string) => boolean) | undefined,
  lineText: (start: number, end: number) => string,
): TextSearchResult {
  const result = emptyResult();
  const counter = new LineCounter(text);
  hits.lastIndex = 0;
  for (let hit = hits.exec(text); hit !== null; hit = hits.exec(text)) {
    const [start, end] = lineBounds(text, hit.index);
    const line = lineText(start, end);
    if (accept === undefined || accept(line)) {
      if (result.matches.length === maxMatches) {
        result.more = true;
        break;
      }
      result.matches.push({ line: counter.lineAt(start), text: line });
    }
    if (end >= text.length) break;
    hits.lastIndex = end + 1;
  }
  return result;
}

/**
 * Tests every line of `text` from `firstLineStart` (numbered `firstLineNumber`) on, and keeps the lines
 * `test` accepts.
 */
export function searchEveryLine(
  text: string,
  maxMatches: number,
  test: (line: string, lineNumber: number) => boolean,
  firstLineStart = 0,
  firstLineNumber = 1,
): TextSearchResult {
  const result = emptyResult();
  let start = firstLineStart;
  let lineNumber = firstLineNumber;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (!(newline === -1 && start === text.length)) {
      const line = text.slice(start, end);
      if (test(line, lineNumber)) {
        if (result.matches.length === maxMatches) {
          result.more = true;
          break;
        }
        result.matches.push({ line: lineNumber, text: line });
      }
    }
    if (newline === -1) break;
    start = newline + 1;
    lineNumber += 1;
  }
  return result;
}
