/**
 * The Tools page's search and filters in its address (`/tools?q=echo&status=off&category=external&source=user`),
 * so a reload or a shared link shows the same list. Pure: the page reads `location.search` and writes
 * with `history.replaceState`. A value the page does not know is not applied quietly: it is dropped and
 * reported, so the page can say which part of the address it ignored.
 */
import { NO_TOOL_FILTERS, type ToolFilters, type ToolSource, type ToolStatusFilter } from './tool-filter.ts';

/** The categories the page knows, in the order it lists them (`ToolCategory`, src/contracts). */
export const TOOL_CATEGORIES = ['system', 'interaction', 'image', 'external'] as const;
const STATUSES: readonly ToolStatusFilter[] = ['on', 'off'];
const SOURCES: readonly ToolSource[] = ['builtin', 'operator', 'user'];

export interface ParsedToolFilters {
  filters: ToolFilters;
  /** One sentence per address parameter that was ignored. */
  problems: string[];
}

function known<T extends string>(
  params: URLSearchParams,
  key: string,
  allowed: readonly T[],
  problems: string[],
): T | 'all' {
  const value = params.get(key);
  if (value === null || value === '') return 'all';
  if ((allowed as readonly string[]).includes(value)) return value as T;
  problems.push(
    `The address asks for ${key} ${JSON.stringify(value)}, which is not one of ${allowed.join(', ')}; showing every ${key}.`,
  );
  return 'all';
}

/** Reads `?q=&status=&category=&source=`; other parameters are not the page's and are left alone. */
export function filtersFromAddress(search: string): ParsedToolFilters {
  const params = new URLSearchParams(search);
  const problems: string[] = [];
  return {
    filters: {
      query: params.get('q') ?? '',
      status: known(params, 'status', STATUSES, problems),
      category: known(params, 'category', TOOL_CATEGORIES, problems),
      source: known(params, 'source', SOURCES, problems),
    },
    problems,
  };
}

/** The address's query string for `filters` ('' when nothing is filtered), keeping parameters not ours. */
export function addressForFilters(filters: ToolFilters, currentSearch = ''): string {
  const params = new URLSearchParams(currentSearch);
  const set = (key: string, value: string, unset: string) => {
    if (value === unset) params.delete(key);
    else params.set(key, value);
  };
  set('q', filters.query, NO_TOOL_FILTERS.query);
  set('status', filters.status, NO_TOOL_FILTERS.status);
  set('category', filters.category, NO_TOOL_FILTERS.category);
  set('source', filters.source, NO_TOOL_FILTERS.source);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
