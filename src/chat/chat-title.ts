/**
 * Chat titles: the one a chat gets from its first message, and the check a title the user chooses
 * must pass. A derived title is the message's first non-blank line with whitespace runs collapsed,
 * cut at a word boundary to at most `DERIVED_TITLE_LENGTH` characters (ending in "…" when cut), so a
 * sidebar shows a readable name instead of "New chat" and never a wall of text.
 */

/** Longest title a user may set (and the service stores). */
export const MAX_TITLE_LENGTH = 200;
/** Longest title derived from a message: what fits one sidebar row. */
export const DERIVED_TITLE_LENGTH = 60;
export const DEFAULT_CHAT_TITLE = 'New chat';

// Control characters (C0, DEL, C1) and the line/paragraph separators: a title is one line of text.
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
const CONTROL_GLOBAL = /[\p{Cc}\u2028\u2029]+/gu;

/** The title a chat gets from its first message; `DEFAULT_CHAT_TITLE` when the message has no text. */
export function titleFromMessage(message: string): string {
  const line = message
    .split(/\r\n|\r|\n/)
    .map((candidate) => candidate.replace(CONTROL_GLOBAL, ' ').replace(/\s+/g, ' ').trim())
    .find((candidate) => candidate !== '');
  if (line === undefined) return DEFAULT_CHAT_TITLE;
  const characters = [...line];
  if (characters.length <= DERIVED_TITLE_LENGTH) return line;
  // Room for the ellipsis; counted in code points so an emoji is never split in half.
  const head = characters.slice(0, DERIVED_TITLE_LENGTH).join('');
  const space = head.lastIndexOf(' ');
  // A single long word is cut where it must be, rather than leaving a one-letter title.
  const cut = space >= DERIVED_TITLE_LENGTH / 2 ? head.slice(0, space) : [...head].slice(0, -1).join('');
  return `${cut.trimEnd()}…`;
}

/**
 * Why `title` cannot be a chat's title, or undefined when it can (after trimming by the caller):
 * empty, longer than `MAX_TITLE_LENGTH`, or containing a control character or line break.
 */
export function titleProblem(title: string): string | undefined {
  if (title === '') return 'title must not be empty.';
  const length = [...title].length;
  if (length > MAX_TITLE_LENGTH) {
    return `title must be at most ${MAX_TITLE_LENGTH} characters; got ${length}.`;
  }
  const control = CONTROL.exec(title);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `title must be one line of text without control characters; got U+${code} at position ${control.index + 1}.`;
  }
  return undefined;
}
