/**
 * The comments of a source file, line by line, and nothing else: text inside string literals, template
 * literals and regular-expression literals is code, so a test named "issue a token" or a pattern that
 * matches `#7` is never taken for a comment. TypeScript and JavaScript get `//` and block comments,
 * CSS block comments, HTML `<!-- -->` comments. A scanner rather than a parser: it needs no dependency
 * and only has to tell comments from literals, which the language's lexical rules decide locally.
 */

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

/** After one of these characters a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^']);
const KEYWORDS_BEFORE_REGEX = new Set([
  'return',
  'typeof',
  'case',
  'do',
  'else',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'yield',
  'await',
]);

/** Every line of every comment in `text`, in order. */
export function sourceComments(text: string, language: SourceLanguage): CommentLine[] {
  const found: CommentLine[] = [];
  let line = 1;
  let i = 0;
  /** Appends the comment text `text.slice(start, end)`, split at its line breaks. */
  const take = (start: number, end: number) => {
    text
      .slice(start, end)
      .split('\n')
      .forEach((part, offset) => {
        found.push({ line: line + offset, text: part });
      });
  };
  const advanceTo = (end: number) => {
    for (let k = i; k < end; k++) if (text[k] === '\n') line++;
    i = end;
  };
  const closeOf = (open: number, close: string) => {
    const end = text.indexOf(close, open);
    return end === -1 ? text.length : end + close.length;
  };

  if (language === 'html') {
    for (let start = text.indexOf('<!--'); start !== -1; start = text.indexOf('<!--', i)) {
      line = text.slice(0, start).split('\n').length;
      i = closeOf(start + 4, '-->');
      take(start, i);
    }
    return found;
  }

  /** Brace depth inside each open `${`, innermost last; a `}` at depth 0 resumes the template. */
  const templates: number[] = [];
  let previous = '';
  /** The identifier or keyword that ends at `previous`, or '' when `previous` ends none. */
  let word = '';
  let inWord = false;

  /** Skips a quoted literal opened at `i` (the quote included); templates stop at `${`. */
  const skipQuoted = (quote: string) => {
    let k = i + 1;
    while (k < text.length && text[k] !== quote) {
      if (text[k] === '\\') k++;
      else if (quote === '`' && text[k] === '$' && text[k + 1] === '{') {
        advanceTo(k + 2);
        templates.push(0);
        return;
      } else if (quote !== '`' && text[k] === '\n') break;
      k++;
    }
    advanceTo(Math.min(k + 1, text.length));
  };

  /** The end of a regular-expression literal opened at `i`, or -1 when the `/` is a division. */
  const regexEnd = () => {
    let inClass = false;
    for (let k = i + 1; k < text.length; k++) {
      const c = text[k];
      if (c === '\n') return -1;
      if (c === '\\') k++;
      else if (c === '[') inClass = true;
      else if (c === ']') inClass = false;
      else if (c === '/' && !inClass) {
        let end = k + 1;
        while (end < text.length && /[a-z]/i.test(text[end]!)) end++;
        return end;
      }
    }
    return -1;
  };

  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '*') {
      const end = closeOf(i + 2, '*/');
      take(i, end);
      advanceTo(end);
      continue;
    }
    if (language === 'script' && c === '/' && next === '/') {
      const lineEnd = text.indexOf('\n', i);
      const end = lineEnd === -1 ? text.length : lineEnd;
      take(i, end);
      advanceTo(end);
      continue;
    }
    if (c === '"' || c === "'" || (language === 'script' && c === '`')) {
      skipQuoted(c);
      previous = c;
      word = '';
      inWord = false;
      continue;
    }
    if (language === 'script' && c === '}' && templates.length > 0 && templates.at(-1) === 0) {
      templates.pop();
      skipQuoted('`'); // the `}` closes the substitution; the template's text follows it
      previous = '`';
      word = '';
      inWord = false;
      continue;
    }
    if (language === 'script' && c === '/') {
      const end =
        previous === '' || BEFORE_REGEX.has(previous) || KEYWORDS_BEFORE_REGEX.has(word) ? regexEnd() : -1;
      if (end !== -1) {
        advanceTo(end);
        previous = '/';
        word = '';
        inWord = false;
        continue;
      }
    }
    if (templates.length > 0) {
      if (c === '{') templates[templates.length - 1]!++;
      else if (c === '}') templates[templates.length - 1]!--;
    }
    if (/\s/.test(c)) {
      if (c === '\n') line++;
      inWord = false;
      i++;
      continue;
    }
    const wordChar = /[\w$]/.test(c);
    word = wordChar ? (inWord ? word + c : c) : '';
    inWord = wordChar;
    previous = c;
    i++;
  }
  return found;
}
