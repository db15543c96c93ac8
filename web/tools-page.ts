/**
 * The Tools page: every tool from `GET /api/settings/tools`, in foldable groups by category, an MCP
 * server's tools under that server (`GET /api/mcp-servers`: its origin and state; a failed server shows
 * even though it has no tools), each with an on/off switch and a settings form generated from its
 * `parameterDescriptors` (docs/web.md, "Tools"). Above them, a search and filters that narrow the list
 * as the user types; they live in the page's address, so a reload or a shared link shows the same list.
 * Nothing here re-renders the page after an action: a save, a switch, adding or removing a server each
 * change their own part, and scroll position and focus stay where they were.
 */
import type { ApiClient, ToolSettingsDescriptor, UserMcpServerView } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';
import { createFoldStore } from './fold-state.ts';
import { createAddServerForm } from './mcp-server-form.ts';
import { isFiltering, type ToolFilters } from './tool-filter.ts';
import { addressForFilters, filtersFromAddress } from './tool-filter-address.ts';
import { CATEGORY_TITLES, groupTools, type ToolSection } from './tool-groups.ts';
import { ToolsList } from './tools-list.ts';
import { createToolsToolbar, type FilterChoice, type ToolsToolbar } from './tools-toolbar.ts';

const SOURCE_LABELS: Readonly<Record<string, string>> = {
  builtin: 'Built-in',
  operator: "Operator's MCP servers",
  user: 'Your MCP servers',
};

/** The category and source choices worth offering: those the list has. */
function filterChoices(sections: readonly ToolSection[], hasUserServers: boolean) {
  const categories: FilterChoice[] = sections.map((section) => ({
    value: section.category,
    label: CATEGORY_TITLES[section.category] ?? section.category,
  }));
  const present = new Set<string>();
  for (const section of sections) {
    if (section.entries.length > 0) present.add('builtin');
    for (const group of section.servers) present.add(group.source);
  }
  if (hasUserServers) present.add('user');
  const sources = ['builtin', 'operator', 'user']
    .filter((source) => present.has(source))
    .map((source) => ({ value: source, label: SOURCE_LABELS[source] ?? source }));
  return { categories, sources };
}

/** What shows when nothing matches: the search in words, and the way back to every tool. */
function createEmptyState(clear: () => void) {
  const text = h('p', { class: 'tools-empty-text' });
  const element = h(
    'div',
    { class: 'tools-empty', hidden: true },
    text,
    h('button', { type: 'button', class: 'button-secondary', onclick: clear }, 'Show every tool'),
  );
  return {
    element,
    show: (filters: ToolFilters, nothingShown: boolean) => {
      element.hidden = !(isFiltering(filters) && nothingShown);
      const query = filters.query.trim();
      text.textContent =
        query === '' ? 'No tool matches these filters.' : `No tool matches “${query}” with these filters.`;
    },
  };
}

/**
 * After "Add server": the new server's group goes in place with its tools, comes into view, and the
 * form says how it went (focus stays on the form).
 */
function onServerAdded(api: ApiClient, list: ToolsList, refresh: () => void) {
  return async (server: UserMcpServerView): Promise<string> => {
    let tools: ToolSettingsDescriptor[];
    try {
      tools = await api.listTools();
    } catch (error) {
      return `Added ${server.name}, but its tools could not be listed: ${(error as Error).message} Reload to see them.`;
    }
    const group = list.addServer(server, tools);
    refresh();
    const shown = list.isServerShown(server.name);
    if (group && shown) group.scrollIntoView({ block: 'nearest' });
    const state =
      server.state.status === 'failed' ? `failed: ${server.state.error ?? 'no reason given'}` : 'connected';
    return `Added ${server.name} (${state}).${shown ? '' : ' The search or filters hide it.'}`;
  };
}

async function loadTools(api: ApiClient) {
  // A server that keeps no MCP servers for users answers 404 here: then there is nothing to show.
  const [tools, servers] = await Promise.all([api.listTools(), api.listMcpServers().catch(() => undefined)]);
  return { tools, servers };
}

export async function renderToolsPage(container: HTMLElement, api: ApiClient): Promise<void> {
  const heading = h('h1', { tabindex: -1 }, 'Tools');
  const status = h('p', { class: 'page-status', role: 'status' }, 'Loading tools…');
  const intro = 'Choose which tools models may call in your chats, and tune their settings.';
  replaceChildren(container, heading, h('p', { class: 'page-intro' }, intro), status);
  heading.focus();
  let loaded: Awaited<ReturnType<typeof loadTools>>;
  try {
    loaded = await loadTools(api);
  } catch (error) {
    status.textContent = `Could not load tools: ${(error as Error).message}`;
    status.classList.add('error-text');
    return;
  }
  status.textContent = '';
  const sections = groupTools(loaded.tools, loaded.servers);
  const { filters: initial, problems } = filtersFromAddress(window.location.search);
  let addForm: HTMLElement | undefined;
  const list = new ToolsList(sections, {
    api,
    folds: createFoldStore(window.localStorage),
    onServerRemoved: (name, next) => {
      status.textContent = `Removed ${name}.`;
      show(toolbar.filters());
      const target = next ?? addForm?.querySelector<HTMLElement>('input') ?? heading;
      target.focus({ preventScroll: true });
      target.scrollIntoView({ block: 'nearest' });
    },
  });
  const empty = createEmptyState(() => toolbar.clear());
  const show = (filters: ToolFilters) => {
    const { shown, total } = list.apply(filters);
    toolbar.showCount(shown, total, isFiltering(filters));
    empty.show(filters, shown === 0 && list.element.querySelector('.mcp-server:not([hidden])') === null);
  };
  const toolbar: ToolsToolbar = createToolsToolbar({
    initial,
    ...filterChoices(sections, loaded.servers !== undefined),
    onChange: (filters) => {
      const address = `${window.location.pathname}${addressForFilters(filters, window.location.search)}`;
      window.history.replaceState(window.history.state, '', address);
      show(filters);
    },
  });
  if (loaded.servers !== undefined)
    addForm = createAddServerForm(
      api,
      onServerAdded(api, list, () => show(toolbar.filters())),
    );
  container.append(
    toolbar.element,
    ...problems.map((problem) => h('p', { class: 'tool-note address-problem' }, problem)),
    empty.element,
    list.element,
    addForm ?? '',
  );
  show(initial);
}
