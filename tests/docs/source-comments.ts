/**
 * The comments of a source file, line by line, and nothing else: text inside string literals, template
 * literals and regular-expression literals is code, so a test named "issue a token" or a pattern that
 * matches `#7` is never taken for a comment. Scripts are read with the TypeScript compiler's own parser
 * (already the layer check's), which alone knows where a `/` starts a regular expression; CSS block
 * comments need only a scan that skips quoted strings, HTML comments a search for `<!--`.
 */
import ts from 'typescript';

export type SourceLanguage = 'script' | 'css' | 'html';

export interface CommentLine {
  /** 1-based line of the file. */
  line: number;
  /** The comment's text on that line, delimiters included. */
  text: string;
}

/** The language whose comment rules apply to `path`, or null for a file that is not scanned. */
export function sourceLanguageOf(path: string): SourceLanguage | null {
  if (/\.(ts|tsx|js|mjs|cjs)$/.test(path)) return 'script';
  if (path.endsWith('.css')) return 'css';
  if (path.endsWith('.html')) return 'html';
  return null;
}

/** Every line of every comment in `text`, in order. */
export function sourceComments(text: string, language: SourceLanguage): CommentLine[] {
  const spans =
    language === 'script'
      ? scriptComments(text)
      : language === 'css'
        ? cssComments(text)
        : htmlComments(text);
  const lineStarts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
    lineStarts.push(index + 1);
  }
  /** 1-based line of the character at `offset`. */
  const lineOf = (offset: number) => {
    let low = 0;
    let high = lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  };
  return spans.flatMap(([start, end]) =>
    text
      .slice(start, end)
      .split('\n')
      .map((part, offset) => ({ line: lineOf(start) + offset, text: part })),
  );
}

/** `[start, end)` of every comment, sorted: the comments before and after every token of the file. */
function scriptComments(text: string): [number, number][] {
  const file = ts.createSourceFile('source.tsx', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const spans = new Map<number, number>();
  const visit = (node: ts.Node): void => {
    const ranges = [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ];
    for (const range of ranges) spans.set(range.pos, range.end);
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...spans].sort(([a], [b]) => a - b);
}

/** `[start, end)` of every block comment outside a quoted string; an unclosed one runs to the end. */
function cssComments(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let index = 0;
  while (index < text.length) {
    const character = text[index]!;
    if (character === '/' && text[index + 1] === '*') {
      const close = text.indexOf('*/', index + 2);
      const end = close === -1 ? text.length : close + 2;
      spans.push([index, end]);
      index = end;
    } else if (character === '"' || character === "'") {
      let next = index + 1;
      while (next < text.length && text[next] !== character && text[next] !== '\n') {
        next += text[next] === '\\' ? 2 : 1;
      }
      index = next + 1;
    } else index += 1;
  }
  return spans;
}

/** `[start, end)` of every `<!-- -->` comment; an unclosed one runs to the end. */
function htmlComments(text: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let start = text.indexOf('<!--'); start !== -1; ) {
    const close = text.indexOf('-->', start + 4);
    const end = close === -1 ? text.length : close + 3;
    spans.push([start, end]);
    start = text.indexOf('<!--', end);
  }
  return spans;
}
