/**
 * What an SDK `Client` sees of the session's tools: annotations from the tools' traits, an
 * `outputSchema` where the result shape is fixed (validated by the client on success and failure
 * alike), -32602 for any cursor, and an unknown-tool error naming only the session's tools.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { annotationsFor, toMcpTool } from '../../src/mcp/mcp-tool-listing.ts';
import { createMcpToolServer } from '../../src/mcp/mcp-tool-server.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { getCurrentDatetimeTool } from '../../src/tools/builtin/get-current-datetime.ts';
import { defaultToolRegistry, ToolRegistry } from '../../src/tools/registry.ts';
import { traitsOf } from '../../src/tools/tool-traits.ts';
import { toolAccessContext } from '../../src/workspaces/tool-access.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';

/** A session confined to /srv/project (listing never touches the filesystem). */
const projectAccess = toolAccessContext(
  computeReachableSet({
    workspaces: [{ path: '/srv/project', access: 'read-write', kind: 'granted' }],
    workingDirectory: '/srv/project',
    homeDirectory: '/srv/project',
    confined: true,
    protectedPaths: ['/proc'],
  }),
);

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(openClients.splice(0).map((client) => client.close()));
});

async function connect(registry: ToolRegistry, toolSettings = new InMemoryToolSettingsRepository()) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = createMcpToolServer({
    userId: 'alice',
    log: () => {},
    registry,
    toolSettings,
    resolveAccess: async () => projectAccess,
  });
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientTransport);
  openClients.push(client);
  return client;
}

describe('annotations from traits', () => {
  test('every builtin tool states its traits, and the hints follow them', () => {
    const builtins = defaultToolRegistry.list();
    expect(builtins.map((tool) => tool.definition.name)).toContain('read_file');
    for (const tool of builtins) {
      const name = tool.definition.name;
      // Each builtin declares its traits (the snapshot and docs/tools.md record them): none is listed cautious by omission.
      expect({ name, declared: tool.traits !== undefined }).toEqual({ name, declared: true });
      const traits = traitsOf(tool);
      expect({ name, annotations: toMcpTool(tool.definition, tool).annotations }).toEqual({
        name,
        annotations: {
          readOnlyHint: traits.readOnly,
          destructiveHint: traits.destructive,
          idempotentHint: traits.idempotent,
          openWorldHint: traits.openWorld,
        },
      });
    }
  });

  test('the hints of tools of different kinds differ as their traits do', () => {
    expect(toMcpTool(getCurrentDatetimeTool.definition, getCurrentDatetimeTool).annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    const bash = buildShellTool('bash');
    expect(toMcpTool(bash.definition, bash).annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  test('a tool without traits gets the cautious hints, stated', () => {
    expect(annotationsFor(undefined)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
});

describe('the SDK client against a session', () => {
  const registry = new ToolRegistry();
  registry.register(getCurrentDatetimeTool);

  test('tools/list carries annotations and the datetime outputSchema', async () => {
    const client = await connect(registry);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]?.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(tools[0]?.outputSchema).toEqual(getCurrentDatetimeTool.outputSchema as never);
  });

  test('a success validates against the outputSchema; a failure has no structured content to fail it', async () => {
    const client = await connect(registry);
    await client.listTools(); // the client validates against the schemas of the last list
    const ok = await client.callTool({ name: 'get_current_datetime', arguments: { timezone: 'UTC' } });
    expect(ok.isError).toBeUndefined();
    expect(Object.keys(callResultData(ok)).sort()).toEqual([
      'isoUtc',
      'localDateTime',
      'locale',
      'offset',
      'timezone',
      'unixMs',
    ]);
    const failed = await client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'Not/AZone' },
    });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect(callResultData(failed).error).toMatchObject({ classification: 'validation_failed' });
  });

  test('any cursor is invalid params (-32602)', async () => {
    const client = await connect(registry);
    const error = await client.listTools({ cursor: 'page-2' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((error as McpError).message).toContain('Invalid cursor "page-2"');
  });

  test('an unknown tool lists only the tools this session offers', async () => {
    const toolSettings = new InMemoryToolSettingsRepository();
    const client = await connect(defaultToolRegistry, toolSettings);
    const offered = (await client.listTools()).tools.map((tool) => tool.name);
    const everything = defaultToolRegistry.list().map((tool) => tool.definition.name);
    // Shells are off by default: the registry knows tools this session does not offer.
    expect(everything.filter((name) => !offered.includes(name)).length).toBeGreaterThan(0);
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(callResultData(unknown)).toEqual({
      error: {
        classification: 'unknown_tool',
        message: `No tool named "no_such_tool". Available tools: ${offered.join(', ')}.`,
      },
    });
  });
});
