/**
 * The scanner behind command approval rules: it reads a bash or zsh command line the way the shell's
 * token recognition does (quoting, operators, comments, reserved words) and either returns the words of
 * ONE simple command whose every character is literal after quote removal, or refuses with a reason
 * naming the first thing it found that is not. It never guesses: a character whose meaning depends on a
 * shell option (zsh's `extendedglob`, `kshglob`, `rcquotes` or `magicequalsubst`, bash's `extglob`) or
 * on context it does not model is refused, so an accepted command gives the program exactly these words
 * with or without those options.
 * Time is linear in the command's length; reasons quote at most a short excerpt.
 */

export type ShellDialect = 'bash' | 'zsh';

/** One word after quote removal, and where quoting began (`text.length` when nothing was quoted). */
export interface LiteralWord {
  text: string;
  quotedFrom: number;
}

export type ScannedWords = { ok: true; words: LiteralWord[] } | { ok: false; reason: string };

/** Reserved words, recognised when a whole unquoted word stands where a command name would. */
const RESERVED_WORDS: Record<ShellDialect, ReadonlySet<string>> = {
  bash: new Set(
    '! case coproc do done elif else esac fi for function if in select then time until while { } [[ ]]'.split(
      ' ',
    ),
  ),
  // zsh also parses the typeset family as reserved words, so their arguments follow assignment rules.
  zsh: new Set(
    [
      '! case coproc do done elif else end esac fi for foreach function if nocorrect repeat select then',
      'time until while { } [[ ]] declare export float integer local readonly typeset',
    ]
      .join(' ')
      .split(' '),
  ),
};

/** `name=` or `name+=` at the start of the command's first word makes it an assignment, not a program. */
const ASSIGNMENT_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
const NAME_START = /[A-Za-z_]/;
const NAME_CHARACTER = /[A-Za-z0-9_]/;
const SPECIAL_PARAMETERS = '@*#?-$!0123456789';
const EXCERPT_LIMIT = 40;

/** A short, escaped excerpt for a reason: `"$HOME"`, never the whole of a long command. */
export function quoteExcerpt(text: string): string {
  const cut = text.length > EXCERPT_LIMIT ? `${text.slice(0, EXCERPT_LIMIT)}…` : text;
  return JSON.stringify(cut);
}

/**
 * Control characters are refused everywhere (tab is a blank; newline is allowed only inside quotes),
 * the C1 range too: literal to the shell, but a terminal showing the command may act on them.
 */
function controlCharacterReason(code: number): string {
  if (code === 0) return 'NUL character';
  return `control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** What a `$` at `index` starts; every form is refused, the reason says which. */
function dollarReason(command: string, index: number, insideDoubleQuotes: boolean): string {
  const next = command[index + 1] ?? '';
  if (next === '(') return command[index + 2] === '(' ? 'arithmetic expansion' : 'command substitution';
  if (next === '[') return 'arithmetic expansion';
  if (next === '{') {
    const close = command.indexOf('}', index);
    const end = close === -1 || close - index > EXCERPT_LIMIT ? index + 2 : close + 1;
    return `expansion ${quoteExcerpt(close === -1 ? '${' : command.slice(index, end))}`;
  }
  if (!insideDoubleQuotes && next === "'") return 'ANSI-C quoting "$\'…\'"';
  if (!insideDoubleQuotes && next === '"') return 'locale translation "$\\"…\\""';
  if (NAME_START.test(next)) {
    let end = index + 1;
    while (end < command.length && end - index <= EXCERPT_LIMIT && NAME_CHARACTER.test(command[end] ?? ''))
      end++;
    return `expansion ${quoteExcerpt(command.slice(index, end))}`;
  }
  if (next !== '' && SPECIAL_PARAMETERS.includes(next)) return `expansion ${quoteExcerpt(`$${next}`)}`;
  // A `$` before a blank or at the end is literal in bash, but nothing is gained by trusting that.
  return `expansion ${quoteExcerpt(next === '' || next === ' ' || next === '\t' ? '$' : `$${next}`)}`;
}

/** The longest operator or redirection token starting with one of `;&|`. */
function controlOperatorReason(command: string, index: number): string {
  const rest = command.slice(index, index + 3);
  if (rest.startsWith('&>>')) return 'redirection "&>>"';
  if (rest.startsWith('&>')) return 'redirection "&>"';
  for (const operator of [';;&', ';;', ';&', ';|', '&&', '&|', '&!', '||', '|&']) {
    if (rest.startsWith(operator)) return `operator ${quoteExcerpt(operator)}`;
  }
  return `operator ${quoteExcerpt(command[index] ?? '')}`;
}

/** What a `<` or `>` starts; `ioNumber` is an all-digit unquoted word just before it (the `2` of `2>&1`). */
function redirectionReason(command: string, index: number, ioNumber: string): string {
  const rest = command.slice(index, index + 3);
  if (rest.startsWith('<(') || rest.startsWith('>(')) return 'process substitution';
  if (rest.startsWith('<<<')) return 'here-string "<<<"';
  if (rest.startsWith('<<')) return 'here-document';
  let end = index + 1;
  while (end < command.length && end - index < 3 && '<>&|!'.includes(command[end] ?? '')) end++;
  if (command[end - 1] === '&') {
    while (end < command.length && end - index < 8 && /[0-9-]/.test(command[end] ?? '')) end++;
  }
  return `redirection ${quoteExcerpt(ioNumber + command.slice(index, end))}`;
}

/** Why the command's first word is not a program name: a reserved word, a job, an assignment. */
function commandWordProblem(first: LiteralWord, dialect: ShellDialect): string | null {
  if (first.quotedFrom === first.text.length && RESERVED_WORDS[dialect].has(first.text)) {
    return `reserved word ${quoteExcerpt(first.text)}`;
  }
  // Both shells run `fg` for a command word that starts with `%`, quoted or not: a job, not a program.
  if (first.text.startsWith('%')) return `job specification ${quoteExcerpt(first.text)}`;
  const assignment = ASSIGNMENT_PREFIX.exec(first.text);
  if (assignment !== null && assignment[0].length <= first.quotedFrom) {
    return `leading assignment ${quoteExcerpt(first.text)}`;
  }
  // POSIX makes `'FOO'=1` a program named `FOO=1`, but zsh also assigns to non-ASCII names (`é=1`) and
  // reads `+=1` as an assignment, so no command word with an `=` is trusted to name a program.
  if (first.text.includes('=')) return `"=" in the command name ${quoteExcerpt(first.text)}`;
  return null;
}

/** What an unquoted `(` means where it stands. */
function parenthesisReason(
  dialect: ShellDialect,
  wordSoFar: string | null,
  wordsBefore: number,
  next: string,
) {
  if (wordSoFar === null && wordsBefore === 0)
    return next === '(' ? 'arithmetic command "(( … ))"' : 'subshell';
  if (wordSoFar !== null && wordsBefore === 0 && next === ')') return 'function definition';
  if (dialect === 'zsh') return wordSoFar === null ? 'glob group "(…)"' : 'glob qualifier "(…)"';
  return 'operator "("';
}

/** A quoted span's text after quote removal and the index just past it, or why it is refused. */
type QuotedSpan = { text: string; end: number } | { reason: string };

/** The `'…'` starting at `index`: everything literal up to the next `'`. */
function singleQuotedSpan(command: string, index: number, dialect: ShellDialect): QuotedSpan {
  const close = command.indexOf("'", index + 1);
  if (close === -1) return { reason: 'unterminated quote' };
  const content = command.slice(index + 1, close);
  for (let offset = 0; offset < content.length; offset++) {
    const inner = content.charCodeAt(offset);
    if (isControl(inner) && inner !== 0x0a && inner !== 0x09)
      return { reason: controlCharacterReason(inner) };
  }
  // With zsh's RC_QUOTES option `''` inside single quotes is one quote, so the words would differ.
  if (dialect === 'zsh' && command[close + 1] === "'") return { reason: 'adjacent single quotes "\'\'"' };
  return { text: content, end: close + 1 };
}

/** The `"…"` starting at `index`: literal only when it holds no expansion of any kind. */
function doubleQuotedSpan(command: string, index: number): QuotedSpan {
  let text = '';
  let position = index + 1;
  for (;;) {
    if (position >= command.length) return { reason: 'unterminated quote' };
    const inner = command[position] as string;
    const innerCode = inner.charCodeAt(0);
    if (inner === '"') break;
    if (inner === '$') return { reason: dollarReason(command, position, true) };
    if (inner === '`') return { reason: 'command substitution' };
    if (isControl(innerCode) && innerCode !== 0x0a && innerCode !== 0x09) {
      return { reason: controlCharacterReason(innerCode) };
    }
    if (inner === '\\') {
      const escaped = command[position + 1];
      if (escaped === undefined) return { reason: 'unterminated quote' };
      if (escaped === '\n') return { reason: 'escaped newline' };
      // Inside double quotes a backslash quotes only these; before anything else it stays.
      if ('$`"\\'.includes(escaped)) {
        text += escaped;
        position += 2;
        continue;
      }
    }
    text += inner;
    position++;
  }
  return { text, end: position + 1 };
}

/** The character a `\\` at `index` quotes. */
function escapedCharacter(command: string, index: number): QuotedSpan {
  const next = command[index + 1] ?? '';
  if (next === '') return { reason: 'trailing backslash' };
  if (next === '\n') return { reason: 'escaped newline' };
  const nextCode = next.charCodeAt(0);
  if (isControl(nextCode)) return { reason: controlCharacterReason(nextCode) };
  return { text: next, end: index + 2 };
}

/** Where an unquoted character stands: the word being read and the words before it. */
interface WordPosition {
  dialect: ShellDialect;
  /** The current word so far, or null between words. */
  word: string | null;
  /** Where quoting began in the current word, -1 when nothing of it was quoted. */
  quotedFrom: number;
  wordsBefore: number;
  /** Whether the current word holds a `=` or `:` so far. */
  wordHasSeparator: boolean;
}

/** Why the unquoted character at `index` is not literal there, or null when it is. */
function unquotedCharacterReason(command: string, index: number, position: WordPosition): string | null {
  const { dialect, word, wordsBefore, wordHasSeparator } = position;
  const character = command[index] as string;
  const next = command[index + 1] ?? '';
  const atWordStart = word === null;
  // zsh drops empty quotes before expanding, so `""=ls` is an equals expansion and `''~` a tilde.
  const nothingBefore = word === null || word === '';
  switch (character) {
    case '$':
      return dollarReason(command, index, false);
    case '`':
      return 'command substitution';
    case ';':
    case '&':
    case '|':
      return controlOperatorReason(command, index);
    case '<':
    case '>': {
      const current = word;
      const ioNumber =
        current !== null && position.quotedFrom === -1 && /^[0-9]+$/.test(current) ? current : '';
      return redirectionReason(command, index, ioNumber);
    }
    case '(':
      return parenthesisReason(dialect, word, wordsBefore, next);
    case ')':
      return 'operator ")"';
    case '*':
    case '?':
    case '[':
    case ']':
      return `glob ${quoteExcerpt(character)}`;
    case '{':
    case '}': {
      const alone = atWordStart && (next === '' || next === ' ' || next === '\t' || next === '\n');
      if (alone && wordsBefore === 0) return 'group "{ …; }"';
      return character === '{' ? 'brace expansion "{…}"' : 'brace "}"';
    }
    case '~':
      if (nothingBefore || wordHasSeparator) return 'tilde expansion';
      // In bash a `~` inside a word (`HEAD~1`) is literal; zsh's extendedglob makes it a glob operator.
      if (dialect === 'zsh') return 'glob operator "~"';
      return null;
    case '#':
      if (atWordStart) return 'comment';
      if (dialect === 'zsh') return 'glob operator "#"';
      return null;
    case '^':
      if (dialect === 'zsh') return 'glob operator "^"';
      return null;
    case '!':
      // At command position it negates a pipeline; elsewhere it is history expansion in an
      // interactive shell and an extended glob before `(`: never worth trusting.
      return atWordStart && wordsBefore === 0 ? 'reserved word "!"' : 'history expansion "!"';
    case '=':
      // zsh expands `=cmd` at a word's start, and with MAGIC_EQUAL_SUBST also after the word's first
      // `=` or a `:` (`a==ls`, `a=b:=ls`); a later `=` is refused with them.
      if (dialect === 'zsh' && (nothingBefore || wordHasSeparator)) {
        if (next === '(') return 'process substitution';
        let end = index + 1;
        while (
          end < command.length &&
          end - index <= EXCERPT_LIMIT &&
          /[^\s;&|<>()'"\\$`]/.test(command[end] ?? '')
        ) {
          end++;
        }
        return `equals expansion ${quoteExcerpt(command.slice(index, end))}`;
      }
      return null;
    default:
      return null;
  }
}

/**
 * Scans `command` as `dialect` would. `ok` only when it is one simple command of literal words; the
 * refusal reasons are stable phrases (`operator ";"`, `glob "*"`, `tilde expansion`, …).
 */
export function scanLiteralWords(command: string, dialect: ShellDialect): ScannedWords {
  const refuse = (reason: string): ScannedWords => ({ ok: false, reason });
  const words: LiteralWord[] = [];
  let word: string | null = null;
  let quotedFrom = -1;
  // Whether this word holds a `=` or `:` so far: bash expands a `~` after either in a word that looks
  // like an assignment, even as an argument, so such a word's `~` is refused wherever it stands.
  let wordHasSeparator = false;

  // Ends the current word; the first word is checked at once, so `if …; then` names the `if`.
  const finishWord = (): string | null => {
    if (word === null) return null;
    const finished = { text: word, quotedFrom: quotedFrom === -1 ? word.length : quotedFrom };
    word = null;
    quotedFrom = -1;
    wordHasSeparator = false;
    words.push(finished);
    return words.length === 1 ? commandWordProblem(finished, dialect) : null;
  };
  const appendQuoted = (text: string) => {
    if (text.includes('=') || text.includes(':')) wordHasSeparator = true;
    if (word === null) word = '';
    if (quotedFrom === -1) quotedFrom = word.length;
    word += text;
  };
  const appendUnquoted = (character: string) => {
    if (character === '=' || character === ':') wordHasSeparator = true;
    word = (word ?? '') + character;
  };

  let index = 0;
  while (index < command.length) {
    const character = command[index] as string;
    const code = character.charCodeAt(0);

    if (character === ' ' || character === '\t') {
      const problem = finishWord();
      if (problem !== null) return refuse(problem);
      index++;
      continue;
    }
    if (character === '\n') return refuse('newline');
    if (isControl(code)) return refuse(controlCharacterReason(code));

    if (character === "'" || character === '"' || character === '\\') {
      const span =
        character === "'"
          ? singleQuotedSpan(command, index, dialect)
          : character === '"'
            ? doubleQuotedSpan(command, index)
            : escapedCharacter(command, index);
      if ('reason' in span) return refuse(span.reason);
      appendQuoted(span.text);
      index = span.end;
      continue;
    }
    const special = unquotedCharacterReason(command, index, {
      dialect,
      word,
      quotedFrom,
      wordsBefore: words.length,
      wordHasSeparator,
    });
    if (special !== null) return refuse(special);
    appendUnquoted(character);
    index++;
  }
  const problem = finishWord();
  if (problem !== null) return refuse(problem);
  if (words.length === 0) return refuse('empty command');
  return { ok: true, words };
}
