/**
 * The highlighted excerpt of a search hit, as plain parts (`{ text, match }`), never markup: a client
 * builds its own nodes from them, so message text is never read as HTML. Whitespace runs read as one
 * space; the excerpt is cut at spaces around the first matching word, with "…" where text was left out.
 */
import { searchWords, wordMatches } from './chat-search.ts';

export interface SnippetPart {
  text: string;
  /** True for a word that matched a search term. */
  match: boolean;
}

/** Characters of context kept before the first match, and the excerpt's length at most (about). */
const CONTEXT_BEFORE = 60;
const EXCERPT_LENGTH = 220;

function pushText(parts: SnippetPart[], text: string, match: boolean): void {
  if (text === '') return;
  const last = parts.at(-1);
  if (last && last.match === match) last.text += text;
  else parts.push({ text, match });
}

/** `text` cut into parts, the words that match `terms` marked; the whole text (titles). */
export function highlightParts(text: string, terms: readonly string[]): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let at = 0;
  for (const { word, index } of searchWords(text)) {
    if (!wordMatches(word, terms)) continue;
    pushText(parts, text.slice(at, index), false);
    pushText(parts, word, true);
    at = index + word.length;
  }
  pushText(parts, text.slice(at), false);
  return parts;
}

/** An excerpt of `text` around its first word matching `terms`, highlighted. */
export function searchSnippet(text: string, terms: readonly string[]): SnippetPart[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const first = searchWords(flat).find(({ word }) => wordMatches(word, terms));
  let start = Math.max(0, (first?.index ?? 0) - CONTEXT_BEFORE);
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    start = space === -1 || space >= (first?.index ?? 0) ? start : space + 1;
  }
  let end = Math.min(flat.length, start + EXCERPT_LENGTH);
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    const firstEnd = (first?.index ?? 0) + (first?.word.length ?? 0);
    if (space > firstEnd) end = space;
  }
  const parts = highlightParts(flat.slice(start, end), terms);
  if (start > 0) parts.unshift({ text: '…', match: false });
  if (end < flat.length) parts.push({ text: '…', match: false });
  // Neighbouring plain parts (an ellipsis beside text) read as one.
  return parts.reduce<SnippetPart[]>((merged, part) => {
    pushText(merged, part.text, part.match);
    return merged;
  }, []);
}
