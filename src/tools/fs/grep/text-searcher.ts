/**
 * Line search over one file's text, for each engine (see docs/decisions/ on the grep engine):
 *
 * - `literal`: the pattern is a literal or an alternation of literals; one JavaScript RegExp of those
 *   literals (no quantifiers, so linear) finds them, and its hits are the matches.
 * - `re2`: the pattern in RE2 syntax (`re2js`, linear time). A literal every match must contain, when
 *   there is a long enough one, is searched first with a literal RegExp and only the lines holding it are
 *   tested; otherwise one whole-text test rejects a non-matching file and matching files are tested line
 *   by line.
 * - `javascript`: patterns RE2 cannot express (backreferences, lookaround). JavaScript's backtracking
 *   engine gives up after an internal limit and reports "no match" (JSC: `/(a+)+c|!/.test('a'.repeat(26) +
 *   '!')` is false). A give-up costs hundreds of milliseconds, so a search that returned "no match" after
 *   more than {@link GIVE_UP_SUSPECT_MS} is repeated line by line and every line whose test again took
 *   that long without a match is returned in `unsearchedLines` rather than silently skipped. This engine
 *   runs only in a worker thread, which the caller terminates when the call's budget ends.
 *
 * Every engine reports a line when the line on its own matches (the semantics of splitting the text by
 * newline and testing each line); a match found across a line break only points at a line to test.
 */
import { RE2JS } from 're2js';
import { analyzePattern } from './analyze-pattern.ts';
import {
  decode,
  emptyResult,
  LineCounter,
  lineBounds,
  searchEveryLine,
  type TextSearchResult,
} from './line-scan.ts';
import { createLiteralHits, searchLiteralHits } from './literal-hits.ts';

/** A "no match" that took longer than this may be an engine give-up (measured give-ups: 400–700 ms). */
export const GIVE_UP_SUSPECT_MS = 20;

export type GrepEngine = 'literal' | 're2' | 'javascript';

/** Everything a thread needs to rebuild the matcher (structured-clone safe). */
export interface GrepMatcherSpec {
  pattern: string;
  caseInsensitive: boolean;
  engine: GrepEngine;
  re2Source: string | null;
  /** Literal prefilter (literal engine: the literals themselves). */
  prefilterLiterals: string[] | null;
  /**
   * re2 engine: the pattern from its longest required literal on (see analyze-pattern.ts); the worker's
   * whole-text scan looks for it instead of the whole pattern. Absent: scan for the whole pattern.
   */
  anchoredSuffix?: string | null;
}

export type { LineMatch, TextSearchResult } from './line-scan.ts';

/** Searches one file's bytes (UTF-8); only what is needed gets decoded. */
export type TextSearcher = (bytes: Uint8Array, maxMatches: number) => TextSearchResult;

/** Minimum prefilter literal length worth searching for before testing lines. */
const MIN_PREFILTER_LENGTH = 3;

export interface SearcherOptions {
  /**
   * The searcher runs in a worker thread: a pattern RE2 can express but no literal prefilter helps is
   * then scanned with JavaScript's JIT-compiled engine first (several times faster on typical text), with
   * RE2 as the safety net: a "no match" that took long enough to be a give-up hands the rest of the file
   * to RE2, and a line JavaScript rejected slowly is re-tested with RE2. Never on the main thread, where a
   * single slow `exec` would stall the server.
   */
  offMainThread?: boolean;
}

/**
 * Tests a line with JavaScript's engine; a "no match" that took long enough to be a give-up is re-tested
 * with the linear `re2Line`, so a give-up never loses a line. Worker threads only.
 */
function createGuardedLineTest(spec: GrepMatcherSpec, re2Line: (line: string) => boolean) {
  const single = new RegExp(spec.pattern, spec.caseInsensitive ? 'i' : '');
  return (line: string): boolean => {
    const began = performance.now();
    if (single.test(line)) return true;
    return performance.now() - began >= GIVE_UP_SUSPECT_MS ? re2Line(line) : false;
  };
}

function createGuardedJavaScriptSearcher(
  spec: GrepMatcherSpec,
  re2Line: (line: string) => boolean,
): TextSearcher {
  const flags = spec.caseInsensitive ? 'i' : '';
  // The scan only proposes lines (each is then tested whole), so the anchored suffix serves: it matches
  // wherever the pattern does, and a scan that starts at a literal skips the positions that cannot match
  // (measured: `=\s*\d+;` scans 550 MB in 0.03 s where `\w+\s*=\s*\d+;` takes 4.5 s).
  const whole = new RegExp(spec.anchoredSuffix ?? spec.pattern, `gm${flags}`);
  const testLine = createGuardedLineTest(spec, re2Line);
  return (bytes, maxMatches) => {
    const text = decode(bytes);
    return searchProposedLines(text, whole, maxMatches, emptyResult(), testLine, re2Line);
  };
}

/**
 * Walks the lines the global multiline RegExp `whole` proposes and keeps those `testLine` accepts, adding
 * them to `result`. A "no match" slow enough to be an engine give-up hands the rest of the text, from the
 * line where the scan stood, to a test of every line with `restLine`, so a give-up never loses a line.
 */
function searchProposedLines(
  text: string,
  whole: RegExp,
  maxMatches: number,
  result: TextSearchResult,
  testLine: (line: string, lineNumber: number) => boolean,
  restLine: (line: string, lineNumber: number) => boolean,
): TextSearchResult {
  const counter = new LineCounter(text);
  whole.lastIndex = 0;
  for (;;) {
    const from = whole.lastIndex;
    const began = performance.now();
    const hit = whole.exec(text);
    if (hit === null) {
      if (performance.now() - began < GIVE_UP_SUSPECT_MS) return result;
      const [start] = lineBounds(text, from);
      const rest = searchEveryLine(
        text,
        maxMatches - result.matches.length,
        restLine,
        start,
        counter.lineAt(start),
      );
      result.matches.push(...rest.matches);
      result.more = rest.more;
      return result;
    }
    const [start, end] = lineBounds(text, hit.index);
    const line = text.slice(start, end);
    const lineNumber = counter.lineAt(start);
    if (testLine(line, lineNumber)) {
      if (result.matches.length === maxMatches) {
        result.more = true;
        return result;
      }
      result.matches.push({ line: lineNumber, text: line });
    }
    if (end >= text.length) return result;
    whole.lastIndex = end + 1;
  }
}

function createRe2Searcher(spec: GrepMatcherSpec, options: SearcherOptions): TextSearcher {
  const flags = spec.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0;
  const lineRegex = RE2JS.compile(spec.re2Source!, flags);
  const textRegex = RE2JS.compile(spec.re2Source!, flags | RE2JS.MULTILINE);
  const testLine = (line: string) => lineRegex.test(line);
  const literals = spec.prefilterLiterals;
  const usablePrefilter =
    literals?.every((literal) => literal.length >= MIN_PREFILTER_LENGTH) &&
    // JavaScript's and RE2's case folding differ outside ASCII; keep the prefilter exact.
    !(
      spec.caseInsensitive &&
      literals.some((literal) => [...literal].some((character) => character.charCodeAt(0) > 0x7f))
    );
  if (usablePrefilter && literals) {
    const literal = createLiteralHits(literals, spec.caseInsensitive);
    // In a worker, proposed lines are tested with JavaScript's JIT engine (3-5x faster than re2js per
    // line), guarded like the whole-text scan: a slow "no match" is re-tested with RE2.
    const acceptLine = options.offMainThread ? createGuardedLineTest(spec, testLine) : testLine;
    return (bytes, maxMatches) => searchLiteralHits(literal, bytes, maxMatches, acceptLine);
  }
  if (options.offMainThread) return createGuardedJavaScriptSearcher(spec, testLine);
  const suffixSource = spec.anchoredSuffix ? analyzePattern(spec.anchoredSuffix).re2Source : null;
  if (suffixSource !== null) {
    // RE2 skips to the suffix's leading literal (measured 4x faster than a whole-pattern test on C
    // sources), and its matches point at the only lines that can match.
    const suffixRegex = RE2JS.compile(suffixSource, flags | RE2JS.MULTILINE);
    return (bytes, maxMatches) => searchBySuffix(decode(bytes), suffixRegex, maxMatches, testLine);
  }
  return (bytes, maxMatches) => {
    const text = decode(bytes);
    if (!textRegex.test(text)) return emptyResult();
    return searchByBisection(text, maxMatches, (block) => textRegex.test(block), testLine);
  };
}

/**
 * Proposes lines with RE2 matches of the pattern's anchored suffix (a superset of the lines the whole
 * pattern matches: see analyze-pattern.ts) and keeps those `testLine` accepts. Linear, so safe in the
 * calling thread.
 */
function searchBySuffix(
  text: string,
  suffixRegex: RE2JS,
  maxMatches: number,
  testLine: (line: string) => boolean,
): TextSearchResult {
  const result = emptyResult();
  const counter = new LineCounter(text);
  const matcher = suffixRegex.matcher(text);
  let from = 0;
  while (from <= text.length && matcher.find(from)) {
    const [start, end] = lineBounds(text, matcher.start());
    const line = text.slice(start, end);
    if (testLine(line)) {
      if (result.matches.length === maxMatches) {
        result.more = true;
        break;
      }
      result.matches.push({ line: counter.lineAt(start), text: line });
    }
    if (end >= text.length) break;
    from = end + 1;
  }
  return result;
}

/** Block size (characters) the bisection starts from; a block that cannot match is skipped whole. */
const BISECTION_BLOCK = 4096;

/**
 * Finds the matching lines of a text known to match, with the fast whole-block test: blocks of whole
 * lines that do not match are skipped; a matching block is halved at a line break until single lines
 * remain, which are tested on their own. Far fewer engine calls than testing every line.
 */
function searchByBisection(
  text: string,
  maxMatches: number,
  testBlock: (block: string) => boolean,
  testLine: (line: string) => boolean,
): TextSearchResult {
  const result = emptyResult();
  const counter = new LineCounter(text);
  // Returns false once the result is full.
  const visit = (start: number, end: number): boolean => {
    const block = text.slice(start, end);
    const newline = block.indexOf('\n');
    if (newline === -1) {
      if (!testLine(block)) return true;
      if (result.matches.length === maxMatches) {
        result.more = true;
        return false;
      }
      result.matches.push({ line: counter.lineAt(start), text: block });
      return true;
    }
    if (!testBlock(block)) return true;
    const middle = text.lastIndexOf('\n', start + ((end - start) >> 1));
    const split = middle >= start ? middle : start + newline;
    return visit(start, split) && visit(split + 1, end);
  };
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', Math.min(text.length, start + BISECTION_BLOCK));
    if (end === -1) end = text.length;
    if (!visit(start, end)) break;
    start = end + 1;
  }
  return result;
}

function createJavaScriptSearcher(spec: GrepMatcherSpec): TextSearcher {
  const flags = spec.caseInsensitive ? 'i' : '';
  // The whole-text scan (flag m) only proposes lines; the decision is the line tested on its own, as the
  // spec's per-line semantics has it (`$` before a CR or U+2028 counts only in the whole-text scan).
  const whole = new RegExp(spec.pattern, `gm${flags}`);
  const single = new RegExp(spec.pattern, flags);
  // Lookaround can look past a line break in the whole text, which a line on its own has not got: such
  // patterns are tested line by line only.
  const perLineOnly = /\(\?<?[=!]/.test(spec.pattern);
  return (bytes, maxMatches) => {
    const text = decode(bytes);
    const result = emptyResult();
    /** Tests one line; a slow "no match" may be a give-up, so the line is reported instead. */
    const testLine = (line: string, lineNumber: number): boolean => {
      const began = performance.now();
      const matched = single.test(line);
      if (!matched && performance.now() - began >= GIVE_UP_SUSPECT_MS)
        result.unsearchedLines.push(lineNumber);
      return matched;
    };
    if (perLineOnly) {
      const all = searchEveryLine(text, maxMatches, testLine);
      result.matches = all.matches;
      result.more = all.more;
      return result;
    }
    return searchProposedLines(text, whole, maxMatches, result, testLine, testLine);
  };
}

/** Builds the searcher of a spec. The javascript engine must only run off the main thread. */
export function createTextSearcher(spec: GrepMatcherSpec, options: SearcherOptions = {}): TextSearcher {
  switch (spec.engine) {
    case 'literal': {
      const literal = createLiteralHits(spec.prefilterLiterals!, spec.caseInsensitive);
      return (bytes, maxMatches) => searchLiteralHits(literal, bytes, maxMatches, undefined);
    }
    case 're2':
      return createRe2Searcher(spec, options);
    case 'javascript':
      return createJavaScriptSearcher(spec);
  }
}
