/**
 * How the Tools page groups tools, as a pure function of `GET /api/settings/tools` and
 * `GET /api/mcp-servers`: one section per category (system, interaction, images, then external MCP
 * servers), and inside "External MCP servers" one group per server, its tools under it. A tool of a
 * server that is not listed (none is, when the server keeps no MCP servers for users) goes to a last
 * group of its own. Every section and server group has a stable id, which its fold state is kept under.
 */
import type { ToolSettingsDescriptor, UserMcpServerView } from './api-client.ts';
import type { ToolEntry, ToolSource } from './tool-filter.ts';
import { TOOL_CATEGORIES } from './tool-filter-address.ts';

export const CATEGORY_TITLES: Readonly<Record<string, string>> = {
  system: 'System',
  interaction: 'Interaction',
  image: 'Images',
  external: 'External MCP servers',
};

/** "1 tool", "13 tools": how the page counts tools everywhere. */
export function toolCountText(count: number): string {
  return `${count} tool${count === 1 ? '' : 's'}`;
}

export interface ServerGroup {
  /** `server:NAME`; `server:` alone for the tools of no listed server. */
  id: string;
  /** Undefined for the group of tools of no listed server. */
  server: UserMcpServerView | undefined;
  source: ToolSource;
  entries: ToolEntry[];
}

export interface ToolSection {
  /** `category:CATEGORY`. */
  id: string;
  category: string;
  title: string;
  /** The section's own tools (every category but `external`). */
  entries: ToolEntry[];
  /** `external` only: its servers, in the API's order, then the tools of no listed server. */
  servers: ServerGroup[];
}

export function sectionId(category: string): string {
  return `category:${category}`;
}

export function serverGroupId(serverName: string | undefined): string {
  return `server:${serverName ?? ''}`;
}

function categoryRank(category: string): number {
  const index = (TOOL_CATEGORIES as readonly string[]).indexOf(category);
  return index === -1 ? TOOL_CATEGORIES.length : index;
}

/** Whether `tool` is one of `server`'s: by the server's own list of its tools, else by the name's prefix. */
export function isToolOfServer(tool: ToolSettingsDescriptor, server: UserMcpServerView): boolean {
  return server.state.tools
    ? server.state.tools.includes(tool.name)
    : tool.name.startsWith(`mcp__${server.name}__`);
}

export function serverSource(server: UserMcpServerView): ToolSource {
  return server.origin === 'user' ? 'user' : 'operator';
}

/** The group of one server: its tools among `tools`, in the API's order. */
export function groupOfServer(
  server: UserMcpServerView,
  tools: readonly ToolSettingsDescriptor[],
): ServerGroup {
  const source = serverSource(server);
  return {
    id: serverGroupId(server.name),
    server,
    source,
    entries: tools
      .filter((tool) => tool.category === 'external' && isToolOfServer(tool, server))
      .map((tool) => ({ tool, source, server: server.name })),
  };
}

/**
 * The page's sections. `servers` undefined: the server keeps no MCP servers for users, so there is no
 * external section unless a tool is external (an operator's server's tool).
 */
export function groupTools(
  tools: readonly ToolSettingsDescriptor[],
  servers: readonly UserMcpServerView[] | undefined,
): ToolSection[] {
  const categories = [...new Set(tools.map((tool) => tool.category as string))];
  if (servers !== undefined && !categories.includes('external')) categories.push('external');
  categories.sort((left, right) => categoryRank(left) - categoryRank(right));
  return categories.map((category) => {
    const section = {
      id: sectionId(category),
      category,
      title: CATEGORY_TITLES[category] ?? category,
    };
    if (category !== 'external') {
      const entries = tools
        .filter((tool) => tool.category === category)
        .map((tool): ToolEntry => ({ tool, source: 'builtin' }));
      return { ...section, entries, servers: [] };
    }
    const groups = (servers ?? []).map((server) => groupOfServer(server, tools));
    const claimed = new Set(groups.flatMap((group) => group.entries.map((entry) => entry.tool.name)));
    const rest = tools
      .filter((tool) => tool.category === 'external' && !claimed.has(tool.name))
      .map((tool): ToolEntry => ({ tool, source: 'operator' }));
    if (rest.length > 0)
      groups.push({ id: serverGroupId(undefined), server: undefined, source: 'operator', entries: rest });
    return { ...section, entries: [], servers: groups };
  });
}
