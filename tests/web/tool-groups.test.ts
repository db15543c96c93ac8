import { describe, expect, test } from 'bun:test';
import type { ToolSettingsDescriptor, UserMcpServerView } from '../../web/api-client.ts';
import { groupTools } from '../../web/tool-groups.ts';

function tool(name: string, category: ToolSettingsDescriptor['category']): ToolSettingsDescriptor {
  return {
    name,
    title: name,
    description: '',
    category,
    enabled: true,
    canDisable: true,
    available: true,
    confirmBeforeEnable: false,
    readOnly: false,
    resultView: 'json',
    parameters: {},
    parameterDescriptors: [],
  };
}

function server(
  name: string,
  origin: UserMcpServerView['origin'],
  state: UserMcpServerView['state'],
): UserMcpServerView {
  return { name, origin, transport: 'http', state };
}

/** The sections as ids, each with its tool names (server groups by id). */
function shape(sections: ReturnType<typeof groupTools>) {
  return sections.map((section) => ({
    id: section.id,
    title: section.title,
    tools: section.entries.map((entry) => entry.tool.name),
    servers: section.servers.map((group) => ({
      id: group.id,
      source: group.source,
      tools: group.entries.map((entry) => `${entry.tool.name}@${entry.server ?? '-'}:${entry.source}`),
    })),
  }));
}

describe('groupTools', () => {
  test('categories in the page order, an unknown one last; no external section without servers', () => {
    const tools = [
      tool('image', 'image'),
      tool('ask', 'interaction'),
      tool('bash', 'system'),
      tool('grep', 'system'),
    ];
    tools.push({ ...tool('odd', 'system'), category: 'odd' as ToolSettingsDescriptor['category'] });
    expect(shape(groupTools(tools, undefined))).toEqual([
      { id: 'category:system', title: 'System', tools: ['bash', 'grep'], servers: [] },
      { id: 'category:interaction', title: 'Interaction', tools: ['ask'], servers: [] },
      { id: 'category:image', title: 'Images', tools: ['image'], servers: [] },
      { id: 'category:odd', title: 'odd', tools: ['odd'], servers: [] },
    ]);
  });

  test("each server's tools under it, by its list of tools or else by name; a failed server with none; strays last", () => {
    const tools = [
      tool('bash', 'system'),
      tool('mcp__everything__echo', 'external'),
      tool('mcp__everything__add', 'external'),
      tool('mcp__mine__echo', 'external'),
      tool('mcp__stray__x', 'external'),
    ];
    const servers = [
      server('everything', 'operator', { status: 'connected', toolCount: 2 }),
      server('gone', 'operator', { status: 'failed', error: 'refused' }),
      server('mine', 'user', { status: 'connected', toolCount: 1, tools: ['mcp__mine__echo'] }),
    ];
    expect(shape(groupTools(tools, servers))).toEqual([
      { id: 'category:system', title: 'System', tools: ['bash'], servers: [] },
      {
        id: 'category:external',
        title: 'External MCP servers',
        tools: [],
        servers: [
          {
            id: 'server:everything',
            source: 'operator',
            tools: ['mcp__everything__echo@everything:operator', 'mcp__everything__add@everything:operator'],
          },
          { id: 'server:gone', source: 'operator', tools: [] },
          { id: 'server:mine', source: 'user', tools: ['mcp__mine__echo@mine:user'] },
          { id: 'server:', source: 'operator', tools: ['mcp__stray__x@-:operator'] },
        ],
      },
    ]);
  });

  test('an external section for the add form even when no server is listed yet', () => {
    expect(shape(groupTools([tool('bash', 'system')], []))).toEqual([
      { id: 'category:system', title: 'System', tools: ['bash'], servers: [] },
      { id: 'category:external', title: 'External MCP servers', tools: [], servers: [] },
    ]);
  });
});
