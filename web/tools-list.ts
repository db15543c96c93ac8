/**
 * The Tools page's list: a foldable section per category, and under "External MCP servers" a foldable
 * group per server (mcp-server-group.ts), its tools as compact rows. Search and filters only hide and
 * show what is built — nothing is rebuilt as the user types, so unsaved fields survive a search — and
 * open the groups they find something in (group-openness.ts). Adding or removing a server changes its
 * group in place, so the page never jumps.
 */
import type { ApiClient, ToolSettingsDescriptor, UserMcpServerView } from './api-client.ts';
import { h } from './dom.ts';
import { createFoldGroup, type FoldGroup } from './fold-group.ts';
import type { FoldStore } from './fold-state.ts';
import { GroupOpenness } from './group-openness.ts';
import {
  createServerGroupView,
  domIdOf,
  type ListedTool,
  listedTool,
  type ServerGroupView,
} from './mcp-server-group.ts';
import { isFiltering, NO_TOOL_FILTERS, serverMatches, type ToolFilters, toolMatches } from './tool-filter.ts';
import {
  groupOfServer,
  type ServerGroup,
  serverGroupId,
  type ToolSection,
  toolCountText,
} from './tool-groups.ts';

interface SectionView {
  id: string;
  openByDefault: boolean;
  fold: FoldGroup;
  items: ListedTool[];
  servers: ServerGroupView[];
}

export interface ToolsListOptions {
  api: ApiClient;
  folds: FoldStore;
  /** Runs after a server was removed, with the element focus should move to (undefined: none near). */
  onServerRemoved: (name: string, next: HTMLElement | undefined) => void;
}

export class ToolsList {
  readonly element: HTMLElement;
  readonly #options: ToolsListOptions;
  readonly #openness: GroupOpenness;
  readonly #sections: SectionView[];
  readonly #external: SectionView | undefined;
  #filters: ToolFilters = { ...NO_TOOL_FILTERS };

  constructor(sections: readonly ToolSection[], options: ToolsListOptions) {
    this.#options = options;
    this.#openness = new GroupOpenness(options.folds);
    this.#sections = sections.map((section) => this.#buildSection(section));
    this.#external = this.#sections.find((view) => view.id === 'category:external');
    this.element = h(
      'div',
      { class: 'tools-list' },
      this.#sections.map((view) => view.fold.element),
    );
  }

  /** Shows what `filters` keep; returns how many tools are shown and how many there are. */
  apply(filters: ToolFilters): { shown: number; total: number } {
    if (JSON.stringify(filters) !== JSON.stringify(this.#filters))
      this.#openness.searchChanged(isFiltering(filters));
    this.#filters = { ...filters };
    let shown = 0;
    let total = 0;
    for (const view of this.#sections) {
      const counts = this.#applySection(view);
      shown += counts.shown;
      total += counts.total;
    }
    return { shown, total };
  }

  /** Inserts a server's group after the other servers; undefined when the page has no external section. */
  addServer(server: UserMcpServerView, tools: readonly ToolSettingsDescriptor[]): HTMLElement | undefined {
    const external = this.#external;
    if (!external) return undefined;
    this.#dropServer(server.name);
    const view = this.#buildServer(groupOfServer(server, tools));
    // Before the group of tools of no listed server, which stays last.
    const stray = external.servers.findIndex((item) => item.id === serverGroupId(undefined));
    const at = stray === -1 ? external.servers.length : stray;
    external.fold.body.insertBefore(view.fold.element, external.servers[at]?.fold.element ?? null);
    external.servers.splice(at, 0, view);
    this.apply(this.#filters);
    return view.fold.element;
  }

  /** Whether a server's group is shown (not hidden by the filters). */
  isServerShown(name: string): boolean {
    return (
      this.#external?.servers.some(
        (view) => view.group.server?.name === name && !view.fold.element.hidden,
      ) === true
    );
  }

  #buildSection(section: ToolSection): SectionView {
    const items = section.entries.map((entry) => listedTool(entry, this.#options.api, false));
    const servers = section.servers.map((group) => this.#buildServer(group));
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
        onToggle: () => view.fold.setOpen(this.#openness.toggle(view)),
      }),
    };
    return view;
  }

  #buildServer(group: ServerGroup): ServerGroupView {
    return createServerGroupView(group, this.#options.api, {
      onToggle: (view) => view.fold.setOpen(this.#openness.toggle(view)),
      onRemoved: (name) => this.#removeServer(name),
    });
  }

  /** Shows the tools the filters keep; returns how many are shown. */
  #applyItems(items: readonly ListedTool[]): number {
    let shown = 0;
    for (const item of items) {
      const keep = toolMatches({ ...item.entry, tool: item.card.current() }, this.#filters);
      item.card.element.hidden = !keep;
      if (keep) shown += 1;
    }
    return shown;
  }

  /** Shows a server's group when a tool of it matches, or the server itself does; returns its matching tools. */
  #applyServer(view: ServerGroupView): { shown: number; kept: boolean } {
    const shown = this.#applyItems(view.items);
    const filtering = isFiltering(this.#filters);
    const { server } = view.group;
    const kept =
      !filtering ||
      shown > 0 ||
      (server !== undefined &&
        serverMatches({ name: server.name, source: view.group.source }, this.#filters));
    view.fold.element.hidden = !kept;
    view.fold.count.textContent = filtering && view.items.length > 0 ? `${shown} matching ·` : '';
    view.fold.setOpen(this.#openness.isOpen(view, shown));
    return { shown, kept };
  }

  #applySection(view: SectionView): { shown: number; total: number } {
    const filtering = isFiltering(this.#filters);
    const own = this.#applyItems(view.items);
    let keptServers = 0;
    let serverTools = 0;
    for (const server of view.servers) {
      const result = this.#applyServer(server);
      if (result.kept) keptServers += 1;
      serverTools += result.shown;
    }
    const total = view.items.length + view.servers.reduce((sum, server) => sum + server.items.length, 0);
    const shown = own + serverTools;
    view.fold.element.hidden = filtering && own === 0 && keptServers === 0;
    view.fold.count.textContent = filtering ? `${shown} of ${toolCountText(total)}` : toolCountText(total);
    view.fold.setOpen(this.#openness.isOpen(view, own + keptServers));
    return { shown, total };
  }

  /** Drops a server's group; returns its index in the external section's servers, or -1. */
  #dropServer(name: string): number {
    const servers = this.#external?.servers ?? [];
    const index = servers.findIndex((view) => view.group.server?.name === name);
    if (index !== -1) {
      servers[index]?.fold.element.remove();
      servers.splice(index, 1);
    }
    return index;
  }

  #removeServer(name: string): void {
    const servers = this.#external?.servers ?? [];
    const index = servers.findIndex((view) => view.group.server?.name === name);
    if (index === -1) return;
    // Focus goes to the next shown server's group, else the one before it.
    const candidates = [...servers.slice(index + 1), ...servers.slice(0, index).reverse()];
    const next = candidates.find((view) => !view.fold.element.hidden)?.fold.button;
    this.#dropServer(name);
    this.apply(this.#filters);
    this.#options.onServerRemoved(name, next);
  }
}
