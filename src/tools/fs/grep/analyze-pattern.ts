/**
 * Static analysis of a grep pattern written in JavaScript regex syntax (non-Unicode mode, as
 * `new RegExp(pattern)` reads it). It yields what the engine choice needs:
 *
 * - `pureLiteral`: the pattern is a literal or an alternation of literals, so a literal search is exact;
 * - `requiredLiterals`: one literal per top-level branch that every match must contain, for a prefilter;
 * - `anchoredSuffix`: for a pattern without top-level alternation, the pattern from its longest required
 *   literal on (`=\s*\d+;` of `\w+\s*=\s*\d+;`): wherever the pattern matches, this suffix matches at
 *   the literal, so a scan for it proposes a superset of the matching lines, and a scan that starts
 *   with a literal is far cheaper than one that tries every position (rg's "inner literal" idea);
 * - `re2Source`: the same pattern in RE2 syntax with JavaScript's meaning kept where the two differ
 *   (`.` excludes `\r` and U+2028/2029, `\s` includes JavaScript's Unicode spaces, `\uXXXX`, `\cX`), or
 *   `null` when the pattern uses something RE2 cannot express or would read differently (backreferences,
 *   lookaround, `[^]`, `\p`, `\S` inside a class, …): those run on JavaScript's own engine.
 *
 * The analysis never decides what matches; it only picks a faster engine when the answer is the same.
 */

export interface PatternAnalysis {
  pureLiteral: boolean;
  /** Literals, one per top-level branch, of which every match contains at least one; null if none. */
  requiredLiterals: string[] | null;
  /** The pattern from its longest required literal on; null with top-level alternation or no literal. */
  anchoredSuffix: string | null;
  re2Source: string | null;
}

const JS_SPACE_CLASS_BODY =
  '\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

type Token = TokenKind & {
  /** Index in the source where the token starts. */
  start: number;
};

type TokenKind =
  | { kind: 'literal'; value: string }
  | { kind: 'quantifier'; minimum: number }
  | { kind: 'open' }
  | { kind: 'close' }
  | { kind: 'alternation' }
  | { kind: 'other' };

function re2Char(value: string): string {
  const code = value.codePointAt(0)!;
  if (/[A-Za-z0-9_]/.test(value)) return value;
  if (code < 0x20 || code > 0x7e) return `\\x{${code.toString(16)}}`;
  return /[\\^$.|?*+()[\]{}\-/]/.test(value) ? `\\${value}` : value;
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', v: '\v' };

interface Escape {
  /** Length consumed after the backslash. */
  length: number;
  /** The literal character it stands for, when it is one. */
  literal?: string;
  /** RE2 spelling outside a class (for non-literals). */
  re2?: string;
  /** RE2 spelling inside a class (for non-literals). */
  re2InClass?: string;
  /** Needs JavaScript's engine. */
  javascriptOnly?: boolean;
}

function readEscape(source: string, index: number, inClass: boolean): Escape {
  const character = source[index];
  if (character === undefined) return { length: 0, javascriptOnly: true };
  if (character in SIMPLE_ESCAPES) return { length: 1, literal: SIMPLE_ESCAPES[character] };
  switch (character) {
    case 'd':
    case 'D':
    case 'w':
    case 'W':
      return { length: 1, re2: `\\${character}`, re2InClass: `\\${character}` };
    case 's':
      return { length: 1, re2: `[${JS_SPACE_CLASS_BODY}]`, re2InClass: JS_SPACE_CLASS_BODY };
    case 'S':
      return { length: 1, re2: `[^${JS_SPACE_CLASS_BODY}]`, javascriptOnly: inClass };
    case 'b':
      return inClass ? { length: 1, literal: '\b' } : { length: 1, re2: '\\b' };
    case 'B':
      return inClass ? { length: 1, javascriptOnly: true } : { length: 1, re2: '\\B' };
    case 'x': {
      const hex = source.slice(index + 1, index + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex))
        return { length: 3, literal: String.fromCharCode(Number.parseInt(hex, 16)) };
      return { length: 1, javascriptOnly: true };
    }
    case 'u': {
      const hex = source.slice(index + 1, index + 5);
      if (/^[0-9a-fA-F]{4}$/.test(hex))
        return { length: 5, literal: String.fromCharCode(Number.parseInt(hex, 16)) };
      return { length: 1, javascriptOnly: true };
    }
    case 'c': {
      const letter = source[index + 1];
      if (letter && /[A-Za-z]/.test(letter))
        return { length: 2, literal: String.fromCharCode(letter.charCodeAt(0) % 32) };
      return { length: 1, javascriptOnly: true };
    }
    default:
      // Backreferences, \0, \k<name>, \p{…} (a plain "p" without the u flag) and friends: leave to JS.
      if (/[0-9kpPqQEAzZCGXRhHKNoe]/.test(character)) return { length: 1, javascriptOnly: true };
      return { length: 1, literal: character };
  }
}

function tokenize(source: string): { tokens: Token[]; re2: string | null } {
  const tokens: Token[] = [];
  let re2 = '';
  let javascriptOnly = false;
  let index = 0;
  while (index < source.length) {
    const character = source[index]!;
    const tokenStart = index;
    const push = (token: TokenKind) => tokens.push({ ...token, start: tokenStart });
    if (character === '\\') {
      const escaped = readEscape(source, index + 1, false);
      index += 1 + Math.max(escaped.length, 1);
      if (escaped.javascriptOnly) javascriptOnly = true;
      if (escaped.literal !== undefined) {
        push({ kind: 'literal', value: escaped.literal });
        re2 += re2Char(escaped.literal);
      } else {
        push({ kind: 'other' });
        re2 += escaped.re2 ?? '';
      }
      continue;
    }
    if (character === '[') {
      let end = index + 1;
      let body = '';
      const negated = source[end] === '^';
      if (negated) end += 1;
      if (source[end] === ']') javascriptOnly = true; // [] and [^] mean something else in RE2
      while (end < source.length && source[end] !== ']') {
        const inner = source[end]!;
        if (inner === '\\') {
          const escaped = readEscape(source, end + 1, true);
          if (escaped.javascriptOnly) javascriptOnly = true;
          body += escaped.literal !== undefined ? re2Char(escaped.literal) : (escaped.re2InClass ?? '');
          end += 1 + Math.max(escaped.length, 1);
        } else {
          body += inner === '-' ? '-' : re2Char(inner);
          end += 1;
        }
      }
      index = end + 1;
      push({ kind: 'other' });
      re2 += `[${negated ? '^' : ''}${body}]`;
      continue;
    }
    if (character === '(') {
      if (source.startsWith('(?:', index)) {
        re2 += '(?:';
        index += 3;
      } else if (
        source.startsWith('(?<', index) &&
        !source.startsWith('(?<=', index) &&
        !source.startsWith('(?<!', index)
      ) {
        re2 += '(?P<';
        index += 3;
      } else if (source[index + 1] === '?') {
        javascriptOnly = true; // lookaround and anything else
        index += 2;
      } else {
        re2 += '(';
        index += 1;
      }
      push({ kind: 'open' });
      continue;
    }
    if (character === ')') {
      push({ kind: 'close' });
      re2 += ')';
      index += 1;
      continue;
    }
    if (character === '|') {
      push({ kind: 'alternation' });
      re2 += '|';
      index += 1;
      continue;
    }
    if (character === '*' || character === '+' || character === '?') {
      const previous = tokens[tokens.length - 1];
      const isLazyMarker = character === '?' && previous?.kind === 'quantifier';
      if (!isLazyMarker) push({ kind: 'quantifier', minimum: character === '+' ? 1 : 0 });
      re2 += character;
      index += 1;
      continue;
    }
    if (character === '{') {
      const quantifier = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(index));
      if (quantifier) {
        push({ kind: 'quantifier', minimum: Number(quantifier[1]) });
        re2 += quantifier[0];
        index += quantifier[0].length;
        continue;
      }
    }
    if (character === '.') {
      push({ kind: 'other' });
      re2 += JS_DOT;
      index += 1;
      continue;
    }
    if (character === '^' || character === '$') {
      push({ kind: 'other' });
      re2 += character;
      index += 1;
      continue;
    }
    push({ kind: 'literal', value: character });
    re2 += re2Char(character);
    index += 1;
  }
  return { tokens, re2: javascriptOnly ? null : re2 };
}

/** Pure: analyses a pattern that `new RegExp` has already accepted. */
export function analyzePattern(source: string): PatternAnalysis {
  const { tokens, re2 } = tokenize(source);
  let depth = 0;
  let pureLiteral = true;
  const branches: string[] = [];
  let best = '';
  let bestStart = 0;
  let run = '';
  let runStart = 0;
  const endRun = () => {
    if (run.length > best.length) {
      best = run;
      bestStart = runStart;
    }
    run = '';
  };
  const extendRun = (token: Token & { kind: 'literal' }) => {
    if (run === '') runStart = token.start;
    run += token.value;
  };
  tokens.forEach((token, position) => {
    const next = tokens[position + 1];
    if (token.kind === 'open') {
      if (depth === 0) endRun();
      depth += 1;
      pureLiteral = false;
      return;
    }
    if (token.kind === 'close') {
      depth -= 1;
      return;
    }
    if (depth > 0) return;
    switch (token.kind) {
      case 'alternation':
        endRun();
        branches.push(best);
        best = '';
        return;
      case 'literal':
        if (next?.kind === 'quantifier') {
          pureLiteral = false;
          if (next.minimum >= 1) extendRun(token);
          endRun();
        } else {
          extendRun(token);
        }
        return;
      default:
        pureLiteral = false;
        endRun();
    }
  });
  endRun();
  branches.push(best);
  const everyBranchHasOne = branches.every((literal) => literal.length > 0);
  return {
    pureLiteral: pureLiteral && everyBranchHasOne && branches.every((literal) => !literal.includes('\n')),
    requiredLiterals: everyBranchHasOne ? branches : null,
    // A depth-0 token boundary leaves balanced groups, and without backreferences (re2Source set) the
    // suffix is a valid pattern on its own.
    anchoredSuffix: branches.length === 1 && best.length > 0 && re2 !== null ? source.slice(bestStart) : null,
    re2Source: re2,
  };
}
