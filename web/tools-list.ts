/**
 * The Tools page's list: a foldable section per category, and under "External MCP servers" a foldable
 * group per server with its state (and a Remove button for the user's own), its tools as compact rows.
 * Search and filters only hide and show what is built (nothing is rebuilt as the user types, so unsaved
 * fields survive a search). A group the user folded stays folded across reloads (fold-state.ts), unless
 * a search or filter finds something inside it: then it opens, until the user folds it again or the
 * search changes. Adding or removing a server changes its group in place, so the page never jumps.
 */
import type { ApiClient, ToolSettingsDescriptor, UserMcpServerView } from './api-client.ts';
import { h } from './dom.ts';
import { createFoldGroup, type FoldGroup } from './fold-group.ts';
import type { FoldStore } from './fold-state.ts';
import { createRemoveServerButton } from './mcp-server-form.ts';
import { createToolCard, type ToolCard } from './tool-card.ts';
import {
  isFiltering,
  NO_TOOL_FILTERS,
  serverMatches,
  type ToolEntry,
  type ToolFilters,
  toolMatches,
} from './tool-filter.ts';
import { groupOfServer, type ServerGroup, serverGroupId, type ToolSection } from './tool-groups.ts';

interface Item {
  entry: ToolEntry;
  card: ToolCard;
}

interface GroupView {
  id: string;
  fold: FoldGroup;
  items: Item[];
  /** Folded unless the user unfolded it (servers), or open unless folded (categories). */
  openByDefault: boolean;
}

interface ServerView extends GroupView {
  group: ServerGroup;
}

interface SectionView extends GroupView {
  servers: ServerView[];
}

export interface ToolsList {
  element: HTMLElement;
  /** Shows what `filters` keep; returns how many tools are shown and how many there are. */
  apply(filters: ToolFilters): { shown: number; total: number };
  /** Inserts a server's group (after the other servers); undefined when the page has no external section. */
  addServer(server: UserMcpServerView, tools: readonly ToolSettingsDescriptor[]): HTMLElement | undefined;
  /** Whether a server's group is shown (not hidden by the filters). */
  isServerShown(name: string): boolean;
}

export interface ToolsListOptions {
  api: ApiClient;
  folds: FoldStore;
  /** Runs after a server was removed, with the element focus should move to (undefined: none near). */
  onServerRemoved: (name: string, next: HTMLElement | undefined) => void;
}

function plural(count: number): string {
  return `${count} tool${count === 1 ? '' : 's'}`;
}

function serverState(server: UserMcpServerView, toolCount: number): string {
  if (server.state.status === 'failed') return `Failed: ${server.state.error ?? 'no reason given'}`;
  return `Connected · ${plural(server.state.toolCount ?? toolCount)}`;
}

function domIdOf(id: string): string {
  return `group-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export function createToolsList(sections: readonly ToolSection[], options: ToolsListOptions): ToolsList {
  const { api, folds } = options;
  let filters: ToolFilters = { ...NO_TOOL_FILTERS };
  /** Groups the user folded while the current search had opened them. */
  const dismissed = new Set<string>();
  const views: SectionView[] = [];

  /** A search or filter with matches inside a group opens it. */
  const forcedOpen = (visible: number) => isFiltering(filters) && visible > 0;
  const isOpen = (view: GroupView, visible: number) =>
    forcedOpen(visible) ? !dismissed.has(view.id) : folds.isOpen(view.id, view.openByDefault);
  const visibleCount = new Map<string, number>();
  const toggle = (view: GroupView) => {
    const visible = visibleCount.get(view.id) ?? 0;
    if (forcedOpen(visible)) {
      if (dismissed.has(view.id)) dismissed.delete(view.id);
      else dismissed.add(view.id);
    } else folds.setOpen(view.id, !folds.isOpen(view.id, view.openByDefault));
    view.fold.setOpen(isOpen(view, visible));
  };

  const cardOf = (entry: ToolEntry, compact: boolean): Item => ({
    entry,
    card: createToolCard(entry.tool, api, { headingLevel: compact ? 4 : 3, compact }),
  });

  const buildServer = (group: ServerGroup): ServerView => {
    const items = group.entries.map((entry) => cardOf(entry, true));
    const { server } = group;
    const name = server?.name ?? 'Other MCP tools';
    const origin = server === undefined ? '' : server.origin === 'user' ? '(yours)' : '(operator)';
    const view: ServerView = {
      id: group.id,
      group,
      items,
      openByDefault: false,
      fold: createFoldGroup({
        domId: domIdOf(group.id),
        level: 3,
        className: 'mcp-server',
        attributes: server === undefined ? {} : { 'data-mcp-server': server.name },
        title: [`${name} `, h('span', { class: 'mcp-server-origin' }, origin)],
        aside: server
          ? [
              h(
                'p',
                {
                  class:
                    server.state.status === 'failed' ? 'mcp-server-state error-text' : 'mcp-server-state',
                },
                serverState(server, items.length),
              ),
              server.origin === 'user'
                ? createRemoveServerButton(api, server.name, () => removeServer(server.name))
                : null,
            ]
          : null,
        body:
          items.length > 0
            ? items.map((item) => item.card.element)
            : h('p', { class: 'tool-note' }, 'No tools to list.'),
        onToggle: () => toggle(view),
      }),
    };
    return view;
  };

  for (const section of sections) {
    const items = section.entries.map((entry) => cardOf(entry, false));
    const servers = section.servers.map(buildServer);
    const view: SectionView = {
      id: section.id,
      items,
      servers,
      openByDefault: true,
      fold: createFoldGroup({
        domId: domIdOf(section.id),
        level: 2,
        className: 'tool-category',
        attributes: { 'data-category': section.category },
        title: section.title,
        body: [...items.map((item) => item.card.element), ...servers.map((server) => server.fold.element)],
        onToggle: () => toggle(view),
      }),
    };
    views.push(view);
  }
  const external = views.find((view) => view.id === 'category:external');

  /** Shows the items `filters` keep; returns how many are shown. */
  const applyItems = (items: readonly Item[]): number => {
    let shown = 0;
    for (const item of items) {
      const keep = toolMatches({ ...item.entry, tool: item.card.current() }, filters);
      item.card.element.hidden = !keep;
      if (keep) shown += 1;
    }
    return shown;
  };

  const applyServer = (view: ServerView): number => {
    const shown = applyItems(view.items);
    const filtering = isFiltering(filters);
    const { server } = view.group;
    const keep =
      !filtering ||
      shown > 0 ||
      (server !== undefined && serverMatches({ name: server.name, source: view.group.source }, filters));
    view.fold.element.hidden = !keep;
    view.fold.count.textContent =
      filtering && view.items.length > 0 ? `${shown} of ${plural(view.items.length)}` : '';
    visibleCount.set(view.id, shown);
    view.fold.setOpen(isOpen(view, shown));
    return keep ? Math.max(shown, 1) : 0;
  };

  const apply = (next: ToolFilters) => {
    if (JSON.stringify(next) !== JSON.stringify(filters)) dismissed.clear();
    filters = { ...next };
    const filtering = isFiltering(filters);
    let shown = 0;
    let total = 0;
    for (const view of views) {
      const own = applyItems(view.items);
      let servers = 0;
      let serverTools = 0;
      for (const server of view.servers) {
        servers += applyServer(server) > 0 ? 1 : 0;
        serverTools += visibleCount.get(server.id) ?? 0;
      }
      const all = view.items.length + view.servers.reduce((sum, server) => sum + server.items.length, 0);
      const visible = own + serverTools;
      shown += visible;
      total += all;
      view.fold.element.hidden = filtering && own === 0 && servers === 0;
      view.fold.count.textContent = filtering ? `${visible} of ${plural(all)}` : plural(all);
      visibleCount.set(view.id, own + servers);
      view.fold.setOpen(isOpen(view, own + servers));
    }
    return { shown, total };
  };

  /** The fold button of the server group next to `index` (after it, else before it). */
  const neighbourOf = (list: readonly ServerView[], index: number): HTMLElement | undefined => {
    const candidates = [...list.slice(index + 1), ...list.slice(0, index).reverse()];
    return candidates.find((view) => !view.fold.element.hidden)?.fold.button;
  };

  const removeServer = (name: string) => {
    if (!external) return;
    const index = external.servers.findIndex((view) => view.group.server?.name === name);
    if (index === -1) return;
    const next = neighbourOf(external.servers, index);
    const [removed] = external.servers.splice(index, 1);
    removed?.fold.element.remove();
    apply(filters);
    options.onServerRemoved(name, next);
  };

  const addServer = (server: UserMcpServerView, tools: readonly ToolSettingsDescriptor[]) => {
    if (!external) return undefined;
    const existing = external.servers.findIndex((view) => view.group.server?.name === server.name);
    if (existing !== -1) {
      external.servers[existing]?.fold.element.remove();
      external.servers.splice(existing, 1);
    }
    const view = buildServer(groupOfServer(server, tools));
    // Before the group of tools of no listed server, which stays last.
    const stray = external.servers.findIndex((item) => item.id === serverGroupId(undefined));
    const at = stray === -1 ? external.servers.length : stray;
    external.fold.body.insertBefore(view.fold.element, external.servers[at]?.fold.element ?? null);
    external.servers.splice(at, 0, view);
    apply(filters);
    return view.fold.element;
  };

  return {
    element: h(
      'div',
      { class: 'tools-list' },
      views.map((view) => view.fold.element),
    ),
    apply,
    addServer,
    isServerShown: (name) =>
      external?.servers.some((view) => view.group.server?.name === name && !view.fold.element.hidden) ===
      true,
  };
}
