/**
 * One MCP server on the Tools page: a foldable group (folded until the user unfolds it) whose header
 * shows the server's name, origin and state — "Connected · N tools", or "Failed: …" with its error —
 * and, for the user's own, a Remove button; its tools are compact rows. A failed server shows even
 * though it has no tools.
 */
import type { ApiClient, UserMcpServerView } from './api-client.ts';
import { h } from './dom.ts';
import { createFoldGroup, type FoldGroup } from './fold-group.ts';
import { createRemoveServerButton } from './mcp-server-form.ts';
import { createToolCard, type ToolCard } from './tool-card.ts';
import type { ToolEntry } from './tool-filter.ts';
import { type ServerGroup, toolCountText } from './tool-groups.ts';

export interface ListedTool {
  entry: ToolEntry;
  card: ToolCard;
}

export interface ServerGroupView {
  id: string;
  openByDefault: boolean;
  group: ServerGroup;
  fold: FoldGroup;
  items: ListedTool[];
}

function serverState(server: UserMcpServerView, toolCount: number): string {
  if (server.state.status === 'failed') return `Failed: ${server.state.error ?? 'no reason given'}`;
  return `Connected · ${toolCountText(server.state.toolCount ?? toolCount)}`;
}

/** A DOM id stem for a group id (`server:NAME`, `category:system`). */
export function domIdOf(id: string): string {
  return `group-${id.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

export function listedTool(entry: ToolEntry, api: ApiClient, compact: boolean): ListedTool {
  return { entry, card: createToolCard(entry.tool, api, { headingLevel: compact ? 4 : 3, compact }) };
}

function serverAside(server: UserMcpServerView, toolCount: number, api: ApiClient, onRemoved: () => void) {
  return [
    h(
      'p',
      { class: server.state.status === 'failed' ? 'mcp-server-state error-text' : 'mcp-server-state' },
      serverState(server, toolCount),
    ),
    server.origin === 'user' ? createRemoveServerButton(api, server.name, onRemoved) : null,
  ];
}

export function createServerGroupView(
  group: ServerGroup,
  api: ApiClient,
  handlers: { onToggle: (view: ServerGroupView) => void; onRemoved: (name: string) => void },
): ServerGroupView {
  const items = group.entries.map((entry) => listedTool(entry, api, true));
  const { server } = group;
  const origin = server === undefined ? '' : server.origin === 'user' ? '(yours)' : '(operator)';
  const view: ServerGroupView = {
    id: group.id,
    group,
    items,
    openByDefault: false,
    fold: createFoldGroup({
      domId: domIdOf(group.id),
      level: 3,
      className: 'mcp-server',
      attributes: server === undefined ? {} : { 'data-mcp-server': server.name },
      title: [`${server?.name ?? 'Other MCP tools'} `, h('span', { class: 'mcp-server-origin' }, origin)],
      aside: server ? serverAside(server, items.length, api, () => handlers.onRemoved(server.name)) : null,
      body:
        items.length > 0
          ? items.map((item) => item.card.element)
          : h('p', { class: 'tool-note' }, 'No tools to list.'),
      onToggle: () => handlers.onToggle(view),
    }),
  };
  return view;
}
