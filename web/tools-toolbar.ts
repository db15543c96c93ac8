/**
 * The Tools page's search and filters: a search field (title, name, description; Escape clears it),
 * on/off, category and source, the number of tools shown, and a button that clears them all. Every
 * change is reported at once, so the list narrows as the user types.
 */
import { h } from './dom.ts';
import { NO_TOOL_FILTERS, type ToolFilters } from './tool-filter.ts';
import { toolCountText } from './tool-groups.ts';

export interface FilterChoice {
  value: string;
  label: string;
}

export interface ToolsToolbarOptions {
  initial: ToolFilters;
  categories: readonly FilterChoice[];
  sources: readonly FilterChoice[];
  onChange: (filters: ToolFilters) => void;
}

export interface ToolsToolbar {
  element: HTMLElement;
  filters(): ToolFilters;
  /** Clears the search and every filter, and reports the change. */
  clear(): void;
  /** "N tools", or "M of N tools" while something is filtered. */
  showCount(shown: number, total: number, filtering: boolean): void;
}

function select(
  id: string,
  label: string,
  choices: readonly FilterChoice[],
  value: string,
): { field: HTMLElement; control: HTMLSelectElement } {
  const control = h(
    'select',
    { id, name: id },
    choices.map((choice) => h('option', { value: choice.value }, choice.label)),
  );
  control.value = choices.some((choice) => choice.value === value) ? value : 'all';
  return { field: h('div', { class: 'toolbar-field' }, h('label', { for: id }, label), control), control };
}

/** The search field: it reports each keystroke; Escape empties it. */
function createSearchField(query: string, changed: () => void): HTMLInputElement {
  const search = h('input', {
    id: 'tool-search',
    name: 'q',
    type: 'search',
    value: query,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'Title, name or description',
    'aria-describedby': 'tool-count',
  });
  search.addEventListener('input', changed);
  search.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && search.value !== '') {
      event.preventDefault();
      search.value = '';
      changed();
    }
  });
  return search;
}

function createFilterSelects(options: ToolsToolbarOptions) {
  const { initial } = options;
  return {
    status: select(
      'tool-status-filter',
      'Status',
      [
        { value: 'all', label: 'On and off' },
        { value: 'on', label: 'On' },
        { value: 'off', label: 'Off' },
      ],
      initial.status,
    ),
    category: select(
      'tool-category-filter',
      'Category',
      [{ value: 'all', label: 'All categories' }, ...options.categories],
      initial.category,
    ),
    source: select(
      'tool-source-filter',
      'Source',
      [{ value: 'all', label: 'All sources' }, ...options.sources],
      initial.source,
    ),
  };
}

export function createToolsToolbar(options: ToolsToolbarOptions): ToolsToolbar {
  const changed = () => options.onChange(filters());
  const search = createSearchField(options.initial.query, changed);
  const { status, category, source } = createFilterSelects(options);
  const count = h('p', { class: 'tool-count', id: 'tool-count', role: 'status' });
  const clearButton = h('button', { type: 'button', class: 'button-quiet' }, 'Clear search and filters');

  const filters = (): ToolFilters => ({
    query: search.value,
    status: status.control.value as ToolFilters['status'],
    category: category.control.value,
    source: source.control.value as ToolFilters['source'],
  });
  const clear = () => {
    search.value = NO_TOOL_FILTERS.query;
    status.control.value = NO_TOOL_FILTERS.status;
    category.control.value = NO_TOOL_FILTERS.category;
    source.control.value = NO_TOOL_FILTERS.source;
    changed();
  };
  for (const control of [status.control, category.control, source.control])
    control.addEventListener('change', changed);
  clearButton.addEventListener('click', () => {
    clear();
    search.focus();
  });

  const element = h(
    'div',
    { class: 'tools-toolbar', role: 'search', 'aria-label': 'Tools' },
    h(
      'div',
      { class: 'toolbar-field toolbar-search' },
      h('label', { for: 'tool-search' }, 'Search tools'),
      search,
    ),
    status.field,
    category.field,
    source.field,
    h('div', { class: 'toolbar-summary' }, count, clearButton),
  );
  return {
    element,
    filters,
    clear,
    showCount: (shown, total, filtering) => {
      count.textContent = filtering ? `${shown} of ${toolCountText(total)}` : toolCountText(total);
      clearButton.hidden = !filtering;
    },
  };
}
