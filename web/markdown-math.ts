/**
 * TeX math in markdown, found by markdown-it rules and written as placeholders that hold the TeX source
 * as escaped text: `<span class="math math-inline">` for `$…$` and `\(…\)`, `<span class="math
 * math-display">` for `$$…$$` and `\[…\]` inside a paragraph, `<div class="math math-display">` for a
 * display block. The page typesets them (`math-typesetter.ts`) once KaTeX is loaded; until then, and when
 * the TeX is invalid, the source is what shows.
 *
 * Currency is not math (pandoc's rule): an opening `$` is followed by a non-space, its closing `$` is
 * preceded by a non-space and not followed by a digit, and the first unescaped `$` after the opening is
 * the only candidate for closing, so "$5 and $10" stays text. `\$` is a literal dollar.
 *
 * A display block starts with a line opening `$$` (or `\[`) and ends at the line that ends with `$$` (or
 * `\]`). One not closed yet ends at a blank line or the end of the text and is marked `math-open`: shown
 * as source, never typeset, so a block still streaming stays one steady block instead of flipping between
 * paragraph text and math.
 */
import type { MarkdownIt, StateBlock, StateInline } from 'markdown-it';
import { escapeHtml } from './highlight-languages.ts';

const DOLLAR = 0x24;
const BACKSLASH = 0x5c;

function isSpace(character: string | undefined): boolean {
  return character === undefined || /\s/.test(character);
}

/** The offset of the first `$` at or after `from` that no backslash escapes, or -1. */
function unescapedDollar(source: string, from: number, end: number): number {
  for (let index = from; index < end; index += 1) {
    const character = source.charCodeAt(index);
    if (character === BACKSLASH) index += 1;
    else if (character === DOLLAR) return index;
  }
  return -1;
}

function pushMath(state: StateInline, tex: string, display: boolean): void {
  const token = state.push(display ? 'math_inline_display' : 'math_inline', 'span', 0);
  token.content = tex;
  token.markup = display ? '$$' : '$';
}

/** `\(…\)` and `\[…\]` inside a paragraph. */
function bracketedInline(state: StateInline, silent: boolean): boolean {
  const opener = state.src.slice(state.pos, state.pos + 2);
  if (opener !== '\\(' && opener !== '\\[') return false;
  const closer = opener === '\\(' ? '\\)' : '\\]';
  const close = state.src.indexOf(closer, state.pos + 2);
  if (close === -1 || close >= state.posMax) return false;
  const tex = state.src.slice(state.pos + 2, close);
  if (tex.trim() === '') return false;
  if (!silent) pushMath(state, tex, opener === '\\[');
  state.pos = close + 2;
  return true;
}

/** `$$…$$` inside a paragraph: display math in the line of text. */
function doubleDollarInline(state: StateInline, silent: boolean): boolean {
  const start = state.pos + 2;
  const close = state.src.indexOf('$$', start);
  if (close === -1 || close >= state.posMax || state.src.slice(start, close).trim() === '') {
    // Two dollars that close nothing are text; without this the second would open a `$…$`.
    if (!silent) state.pending += '$$';
    state.pos = start;
    return true;
  }
  if (!silent) pushMath(state, state.src.slice(start, close), true);
  state.pos = close + 2;
  return true;
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const source = state.src;
  const first = source.charCodeAt(state.pos);
  if (first === BACKSLASH) return bracketedInline(state, silent);
  if (first !== DOLLAR) return false;
  if (source.charCodeAt(state.pos + 1) === DOLLAR) return doubleDollarInline(state, silent);
  const start = state.pos + 1;
  if (isSpace(source[start])) return false;
  const close = unescapedDollar(source, start, state.posMax);
  if (close === -1 || close === start) return false;
  if (isSpace(source[close - 1]) || /[0-9]/.test(source[close + 1] ?? '')) return false;
  if (!silent) pushMath(state, source.slice(start, close), false);
  state.pos = close + 1;
  return true;
}

const BLOCK_DELIMITERS = [
  { open: '$$', close: '$$' },
  { open: '\\[', close: '\\]' },
];

function lineText(state: StateBlock, line: number): string {
  return state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]!);
}

function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const first = lineText(state, startLine);
  const delimiter = BLOCK_DELIMITERS.find((candidate) => first.startsWith(candidate.open));
  if (!delimiter) return false;
  const rest = first.slice(delimiter.open.length);
  const lines: string[] = [];
  let closed = false;
  let line = startLine;
  const sameLineClose = rest.indexOf(delimiter.close);
  if (sameLineClose !== -1) {
    // `$$x$$` alone on its line is a block; with text after it, it is inline math in a paragraph.
    if (rest.slice(sameLineClose + delimiter.close.length).trim() !== '') return false;
    lines.push(rest.slice(0, sameLineClose));
    closed = true;
  } else {
    lines.push(rest);
    for (line = startLine + 1; line < endLine; line += 1) {
      if (state.isEmpty(line) || state.sCount[line]! < state.blkIndent) {
        line -= 1;
        break;
      }
      const text = lineText(state, line).trimEnd();
      if (text.endsWith(delimiter.close)) {
        lines.push(text.slice(0, -delimiter.close.length));
        closed = true;
        break;
      }
      lines.push(text);
    }
    if (line >= endLine) line = endLine - 1;
  }
  if (silent) return true;
  const token = state.push('math_block', 'div', 0);
  token.block = true;
  token.content = lines.join('\n').trim();
  token.markup = delimiter.open;
  token.info = closed ? '' : 'open';
  token.map = [startLine, line + 1];
  state.line = line + 1;
  return true;
}

export function markdownMath(md: MarkdownIt): void {
  // Before `escape`, which would turn `\(` into a plain parenthesis.
  md.inline.ruler.before('escape', 'math_inline', mathInline);
  md.block.ruler.before('fence', 'math_block', mathBlock, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  const rules = md.renderer.rules;
  rules.math_inline = (tokens, index) =>
    `<span class="math math-inline">${escapeHtml(tokens[index]!.content)}</span>`;
  rules.math_inline_display = (tokens, index) =>
    `<span class="math math-display">${escapeHtml(tokens[index]!.content)}</span>`;
  rules.math_block = (tokens, index) => {
    const token = tokens[index]!;
    const open = token.info === 'open' ? ' math-open' : '';
    return `<div class="math math-display${open}">${escapeHtml(token.content)}</div>\n`;
  };
}
