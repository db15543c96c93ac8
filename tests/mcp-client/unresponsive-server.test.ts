/**
 * A stdio server that never answers the handshake (here `sleep`, run without the sandbox through the
 * operator's `off` mode so the test needs no bubblewrap): its listing gives up at the connect timeout,
 * it is left out with its error, the next listings answer at once, and a turn that calls another tool
 * completes as if it were not there.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExternalToolSource } from '../../src/mcp-client/external-tool-source.ts';
import { createGuardedFetch } from '../../src/mcp-client/guarded-fetch.ts';
import { McpConnectionPool } from '../../src/mcp-client/mcp-connection-pool.ts';
import { McpServerRegistry } from '../../src/mcp-client/mcp-server-registry.ts';
import { mcpStateDirectoryIn } from '../../src/mcp-client/mcp-state-directory.ts';
import { runModelLoop } from '../../src/model-loop/model-loop.ts';
import { createUnsandboxedShell } from '../../src/sandbox/unsandboxed-shell.ts';
import { getEnabledToolRuntime } from '../../src/settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

const directory = mkdtempSync(join(tmpdir(), 'mango-mcp-silent-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

test('a server that never answers is timed out, left out, and costs later turns nothing', async () => {
  const builtins = new ToolRegistry();
  builtins.register(makeTool({ name: 'fine', execute: async () => ({ fine: true }) }));
  const reachable = makeReachableSet({ workingDirectory: directory, confined: true });
  const sandbox = createUnsandboxedShell({ log: () => {} });
  const source = new ExternalToolSource({
    servers: new McpServerRegistry({
      operatorServers: [
        { name: 'silent', transport: 'stdio', command: 'sleep', args: ['60'], env: {}, network: 'none' },
      ],
    }),
    builtins,
    pool: new McpConnectionPool(),
    connector: {
      stateDirectory: mcpStateDirectoryIn(directory),
      sandbox: () => sandbox,
      fetch: createGuardedFetch({ allowPrivate: false }),
      connectTimeoutMs: 400,
    },
    listingAccess: async () => reachable,
    log: () => {},
  });
  try {
    const started = performance.now();
    const registry = await source.registryFor('u');
    expect(performance.now() - started).toBeLessThan(5000);
    expect(registry.list().map((tool) => tool.definition.name)).toEqual(['fine']);
    const { servers } = await source.serverStates('u');
    expect(servers[0]).toMatchObject({ name: 'silent', status: 'failed' });
    expect(servers[0]?.error).toContain(
      'The MCP server "silent" could not be connected: MCP error -32001: Request timed out',
    );

    const again = performance.now();
    const tools = await getEnabledToolRuntime(new InMemoryToolSettingsRepository(), 'u', {
      toolSource: source,
    });
    expect(performance.now() - again).toBeLessThan(300);
    const events: string[] = [];
    for await (const event of runModelLoop({
      provider: new ScriptedProvider([
        toolCallsResponse([{ id: 'c', name: 'fine', arguments: {} }]),
        textResponse('ok'),
      ]),
      model: 'm',
      history: [],
      userText: 'go',
      tools,
      toolContext: { userId: 'u', chatId: 'c', reachable },
    })) {
      events.push(event.type === 'tool_result' ? `tool_result:${event.ok}` : event.type);
    }
    expect(events.filter((type) => type.startsWith('tool_result') || type === 'done')).toEqual([
      'tool_result:true',
      'done',
    ]);
  } finally {
    await source.close();
  }
}, 20_000);
