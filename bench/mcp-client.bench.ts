/**
 * What an external MCP tool call costs through Mango, as `npm run bench -- mcp-client` measures it:
 * server-everything's `echo`, called (a) directly with the SDK client, and (b) as one tool call of a
 * chat turn (`runModelLoop` with a zero-delay scripted provider: the loop, `executeTool` with central
 * validation and budget, the per-user tool source, result mapping and serialization), over Streamable
 * HTTP (the guarded fetch, no connection reuse) and over stdio (direct: a bare `node` process; through
 * the turn: the program in the bubblewrap sandbox). A turn with a no-op builtin tool is measured too,
 * so the loop's own share can be told apart. Last, what a cold stdio connection costs before the first
 * call (spawn, initialize, tools/list): a bare `node` with the SDK client against Mango's, whose
 * program starts in its sandbox behind the program gate and joins the user's process cgroup.
 * Rounds are interleaved; medians are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerDeclaration } from '../src/config/mcp-servers-file.ts';
import { ExternalToolSource } from '../src/mcp-client/external-tool-source.ts';
import { createGuardedFetch } from '../src/mcp-client/guarded-fetch.ts';
import { McpConnectionPool } from '../src/mcp-client/mcp-connection-pool.ts';
import { McpServerRegistry } from '../src/mcp-client/mcp-server-registry.ts';
import { mcpStateDirectoryIn } from '../src/mcp-client/mcp-state-directory.ts';
import { runModelLoop } from '../src/model-loop/model-loop.ts';
import { createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { getEnabledToolRuntime } from '../src/settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../src/settings/tool-settings-repository.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../tests/helpers/scripted-provider.ts';
import { testSandboxUsers } from '../tests/helpers/test-sandbox-users.ts';
import {
  EVERYTHING_SCRIPT as EVERYTHING,
  NODE_MODULES,
  startEverythingOverHttp,
} from '../tests/mcp-client/external-servers.ts';
import { benchReachable } from './support/bench-reachable.ts';
import { noopTool } from './support/noop-tool.ts';

const CALLS = Number(process.env.MCP_CLIENT_BENCH_CALLS ?? 200);
const CONNECTS = Number(process.env.MCP_CLIENT_BENCH_CONNECTS ?? 15);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const httpServer = await startEverythingOverHttp();
const url = httpServer.url;

// The directory the sandboxed program runs in; the sandbox uid must be able to enter it.
const work = mkdtempSync(join(tmpdir(), 'mango-bench-mcp-client-'));
Bun.spawnSync(['chmod', '0755', work]);
const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
const reachable = benchReachable(work);

const servers: McpServerDeclaration[] = [
  { name: 'web', transport: 'http', url, headers: {} },
  {
    name: 'local',
    transport: 'stdio',
    command: 'node',
    args: [EVERYTHING, 'stdio'],
    env: {},
    network: 'none',
    packageDirectory: NODE_MODULES,
  },
];
const builtins = new ToolRegistry();
builtins.register(noopTool);
/** The tools of `declared` for the bench user, over a pool of their own. */
function toolSourceOf(declared: McpServerDeclaration[]): ExternalToolSource {
  return new ExternalToolSource({
    servers: new McpServerRegistry({ operatorServers: declared }),
    builtins,
    pool: new McpConnectionPool(),
    connector: {
      stateDirectory: mcpStateDirectoryIn(work),
      sandbox: () => sandbox,
      fetch: createGuardedFetch({ allowPrivate: true }),
    },
    listingAccess: async () => reachable,
  });
}
const source = toolSourceOf(servers);
// External tools ask before every call by default; the bench measures a user who set them to run
// without asking, so the figures are the call's own cost, not a person's answer time.
const savedSettings = new InMemoryToolSettingsRepository();
for (const name of ['mcp__web__echo', 'mcp__local__echo']) {
  await savedSettings.put('bench', name, { parameters: { approval: 'never' } });
}
const tools = await getEnabledToolRuntime(savedSettings, 'bench', { toolSource: source });

async function direct(transport: StreamableHTTPClientTransport | StdioClientTransport) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return {
    call: async () => {
      await client.callTool({ name: 'echo', arguments: { message: 'bench' } });
    },
    close: () => client.close(),
  };
}

async function turnCalling(name: string, args: Record<string, unknown>): Promise<void> {
  const provider = new ScriptedProvider(
    [toolCallsResponse([{ id: 'c', name, arguments: args }]), textResponse('done')],
    { record: false },
  );
  for await (const event of runModelLoop({
    provider,
    model: 'bench',
    history: [],
    userText: 'go',
    tools,
    toolContext: { userId: 'bench', chatId: 'bench', reachable, dataDirectory: work },
  })) {
    if (event.type === 'tool_result' && !event.ok) throw new Error(`${name} failed: ${event.error.message}`);
  }
}

const subjects: [string, () => Promise<void>][] = [];
const httpDirect = await direct(new StreamableHTTPClientTransport(new URL(url)));
const stdioDirect = await direct(
  new StdioClientTransport({ command: 'node', args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
);
subjects.push(
  ['HTTP: SDK client directly', httpDirect.call],
  ['HTTP: one call through a turn', () => turnCalling('mcp__web__echo', { message: 'bench' })],
  ['stdio: SDK client, bare node', stdioDirect.call],
  ['stdio: one call through a turn (sandboxed)', () => turnCalling('mcp__local__echo', { message: 'bench' })],
  ['turn with a no-op builtin call', () => turnCalling('noop', { value: 'x' })],
);

const samples = new Map<string, number[]>(subjects.map(([name]) => [name, []]));
for (let warm = 0; warm < 20; warm += 1) for (const [, run] of subjects) await run();
for (let round = 0; round < CALLS; round += 1) {
  for (const [name, run] of subjects) {
    const started = performance.now();
    await run();
    samples.get(name)?.push(performance.now() - started);
  }
}

console.log(`-- server-everything echo, ${CALLS} interleaved rounds, median ms per call --`);
const medians = new Map<string, number>();
for (const [name] of subjects) {
  const value = median(samples.get(name) ?? []);
  medians.set(name, value);
  console.log(`${name.padEnd(46)} ${value.toFixed(2).padStart(8)} ms`);
}
const overhead = (turn: string, bare: string) => {
  const through = medians.get(turn) ?? 0;
  const baseline = medians.get(bare) ?? 0;
  return `${(through - baseline).toFixed(2)} ms (${(through / baseline).toFixed(2)}×)`;
};
console.log(
  `HTTP overhead of the turn over the SDK:  ${overhead('HTTP: one call through a turn', 'HTTP: SDK client directly')}`,
);
console.log(
  `stdio overhead of the turn over the SDK: ${overhead('stdio: one call through a turn (sandboxed)', 'stdio: SDK client, bare node')}`,
);

/**
 * A cold stdio connection with the SDK alone: spawn node, initialize, list the tools. Resolves to how
 * to close it, which is not timed (the two close their programs differently).
 */
async function bareConnect(): Promise<() => Promise<void>> {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(
    new StdioClientTransport({ command: 'node', args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
  );
  await client.listTools();
  return () => client.close();
}

/** The same through Mango: a fresh pool, so the user's tool listing starts the sandboxed program. */
async function sandboxedConnect(): Promise<() => Promise<void>> {
  const fresh = toolSourceOf(servers.filter((server) => server.name === 'local'));
  const registry = await fresh.registryFor('bench');
  if (!registry.get('mcp__local__echo')) throw new Error('the sandboxed server listed no echo tool');
  return () => fresh.close();
}

const connects: Record<'bare' | 'sandboxed', number[]> = { bare: [], sandboxed: [] };
for (let round = 0; round < CONNECTS; round += 1) {
  for (const [name, run] of [
    ['bare', bareConnect],
    ['sandboxed', sandboxedConnect],
  ] as const) {
    const started = performance.now();
    const close = await run();
    connects[name].push(performance.now() - started);
    await close();
  }
}
const bareConnectMs = median(connects.bare);
const sandboxedConnectMs = median(connects.sandboxed);
console.log(
  `-- a cold stdio connection (spawn, initialize, tools/list), ${CONNECTS} interleaved rounds, median --`,
);
console.log(`${'stdio: SDK client, bare node'.padEnd(46)} ${bareConnectMs.toFixed(2).padStart(8)} ms`);
console.log(
  `${'stdio: Mango, sandboxed and gated'.padEnd(46)} ${sandboxedConnectMs.toFixed(2).padStart(8)} ms`,
);
console.log(
  `stdio connection overhead: ${(sandboxedConnectMs - bareConnectMs).toFixed(2)} ms (${(sandboxedConnectMs / bareConnectMs).toFixed(2)}×)`,
);

await httpDirect.close();
await stdioDirect.close();
await source.close();
sandbox.dispose();
await httpServer.stop();
rmSync(work, { recursive: true, force: true });
