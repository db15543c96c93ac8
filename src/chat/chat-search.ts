/**
 * What a chat search asks and finds, and the one reading of words both sides share. A query is cut into
 * terms (runs of letters, marks and digits, lowercased); an entry (a chat's title, or one of its user
 * or assistant text messages) matches when each term begins one of its words. The databases find the
 * entries with their own full-text engines (migration 14); the in-memory repository and the snippets
 * read words with `searchWords` here, so a highlighted word is one the engine matched.
 * Why it works this way: docs/decisions/2026-12-02-chat-search.md.
 */
import type { ChatSearchRequest } from './chat-repository.ts';
import { invalid, requireStorable } from './storable-text.ts';

export const MAX_QUERY_LENGTH = 200;
export const MAX_QUERY_TERMS = 12;
export const MAX_SEARCH_LIMIT = 50;
export const DEFAULT_SEARCH_LIMIT = 20;

export type {
  ChatSearchHit,
  ChatSearchMessage,
  ChatSearchPage,
  ChatSearchRequest,
} from './chat-repository.ts';

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The words of `text` with where each starts, as search reads them. */
export function searchWords(text: string): { word: string; index: number }[] {
  return [...text.matchAll(WORD)].map((match) => ({ word: match[0], index: match.index }));
}

/** True when `word`, lowercased, begins with one of the (lowercase) terms. */
export function wordMatches(word: string, terms: readonly string[]): boolean {
  const lower = word.toLowerCase();
  return terms.some((term) => lower.startsWith(term));
}

/** True when each term begins a word of `text`. */
export function textMatches(text: string, terms: readonly string[]): boolean {
  const words = searchWords(text).map(({ word }) => word.toLowerCase());
  return terms.every((term) => words.some((word) => word.startsWith(term)));
}

function integerParameter(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const minimum = name === 'offset' ? 0 : 1;
  const value = Number(raw);
  if (!/^(0|[1-9]\d*)$/.test(raw) || !Number.isSafeInteger(value) || value < minimum || value > max) {
    throw invalid(`${name} must be an integer from ${minimum} to ${max}; got "${raw}".`);
  }
  return value;
}

/** The most results one request may skip: deep pages of a full-text search are better found by words. */
export const MAX_SEARCH_OFFSET = 10_000;

/**
 * Checks a search as the API receives it: `q` of 1–200 characters with at least one word and at most
 * 12 distinct ones, `limit` 1–50 (default 20), `offset` 0–10 000 (default 0).
 * @throws ChatError `invalid_request` naming the parameter, what it must be and what it was.
 */
export function parseChatSearch(query: {
  q?: string | undefined;
  limit?: string | undefined;
  offset?: string | undefined;
}): ChatSearchRequest {
  const q = query.q;
  if (q === undefined || q.trim() === '') throw invalid('q must be the words to search for; got none.');
  requireStorable('q', q);
  if (q.length > MAX_QUERY_LENGTH) {
    throw invalid(`q must be at most ${MAX_QUERY_LENGTH} characters; got ${q.length}.`);
  }
  const terms = [...new Set(searchWords(q).map(({ word }) => word.toLowerCase()))];
  if (terms.length === 0) {
    throw invalid(`q must contain a word (letters or digits); got "${q}".`);
  }
  if (terms.length > MAX_QUERY_TERMS) {
    throw invalid(`q must have at most ${MAX_QUERY_TERMS} distinct words; got ${terms.length}.`);
  }
  return {
    terms,
    limit: integerParameter('limit', query.limit, DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT),
    offset: integerParameter('offset', query.offset, 0, MAX_SEARCH_OFFSET),
  };
}
