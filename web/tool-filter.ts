/**
 * What the Tools page's search and filters keep of the tool list, as pure functions (no DOM), so the
 * page applies them on every keystroke and the tests check them without a browser. A query matches a
 * tool when every word of it is found in the tool's title, name or description (or its server's name),
 * ignoring case and accents; the filters narrow by on/off, category and where the tool comes from.
 */
import type { ToolSettingsDescriptor } from './api-client.ts';

/** Where a tool comes from: the server itself, an operator's MCP server, or one of the user's own. */
export type ToolSource = 'builtin' | 'operator' | 'user';
export type ToolStatusFilter = 'all' | 'on' | 'off';

export interface ToolFilters {
  query: string;
  status: ToolStatusFilter;
  /** A `ToolCategory`, or `all`. */
  category: string;
  source: ToolSource | 'all';
}

export const NO_TOOL_FILTERS: Readonly<ToolFilters> = {
  query: '',
  status: 'all',
  category: 'all',
  source: 'all',
};

/** A tool as the page lists it: its descriptor, where it comes from, and its MCP server if any. */
export interface ToolEntry {
  tool: ToolSettingsDescriptor;
  source: ToolSource;
  server?: string;
}

/** True when the filters keep less than everything (then groups with matches open). */
export function isFiltering(filters: ToolFilters): boolean {
  return (
    searchTerms(filters.query).length > 0 ||
    filters.status !== 'all' ||
    filters.category !== 'all' ||
    filters.source !== 'all'
  );
}

/** Lower case, accents dropped: "Résumé" and "resume" are the same word to a search. */
function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}

/** The words of a query, folded; blank → none. */
export function searchTerms(query: string): string[] {
  return fold(query)
    .split(/\s+/)
    .filter((term) => term !== '');
}

/** Whether every term occurs in one of `texts` (each term may match a different text). */
export function matchesTerms(texts: readonly string[], terms: readonly string[]): boolean {
  if (terms.length === 0) return true;
  const folded = texts.map(fold);
  return terms.every((term) => folded.some((text) => text.includes(term)));
}

/** The texts a query is matched against for one tool. */
export function searchableTexts(entry: ToolEntry): string[] {
  const { tool } = entry;
  return [tool.title, tool.name, tool.description, ...(entry.server === undefined ? [] : [entry.server])];
}

/** Whether the tool passes the on/off, category and source filters (the query aside). */
function passesFilters(entry: ToolEntry, filters: ToolFilters): boolean {
  if (filters.status === 'on' && !entry.tool.enabled) return false;
  if (filters.status === 'off' && entry.tool.enabled) return false;
  if (filters.category !== 'all' && entry.tool.category !== filters.category) return false;
  return filters.source === 'all' || entry.source === filters.source;
}

export function toolMatches(entry: ToolEntry, filters: ToolFilters): boolean {
  return passesFilters(entry, filters) && matchesTerms(searchableTexts(entry), searchTerms(filters.query));
}

/**
 * Whether an MCP server's own row stays when none of its tools does: it passes the filters as a tool of
 * it would, and the query (if any) matches its name. A failed server has no tools and is neither on nor
 * off, so an on/off filter hides it.
 */
export function serverMatches(server: { name: string; source: ToolSource }, filters: ToolFilters): boolean {
  if (filters.status !== 'all') return false;
  if (filters.category !== 'all' && filters.category !== 'external') return false;
  if (filters.source !== 'all' && filters.source !== server.source) return false;
  return matchesTerms([server.name], searchTerms(filters.query));
}
