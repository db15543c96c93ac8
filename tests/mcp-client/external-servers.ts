/**
 * Test helper: the real MCP servers the MCP client tests run (pinned devDependencies started from
 * `node_modules`, plus the probe fixture), their declarations, and a sandbox layout with two users'
 * workspaces and a data directory holding a planted database file, for an `ExternalToolSource` over
 * the real bubblewrap sandbox.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServerDeclaration, StdioMcpServerDeclaration } from '../../src/config/mcp-servers-file.ts';
import { ExternalToolSource } from '../../src/mcp-client/external-tool-source.ts';
import { createGuardedFetch } from '../../src/mcp-client/guarded-fetch.ts';
import {
  McpConnectionPool,
  type McpConnectionPoolOptions,
} from '../../src/mcp-client/mcp-connection-pool.ts';
import { McpServerRegistry } from '../../src/mcp-client/mcp-server-registry.ts';
import { formerMcpStateDirectoryIn, mcpStateDirectoryIn } from '../../src/mcp-client/mcp-state-directory.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { createUnsandboxedShell } from '../../src/sandbox/unsandboxed-shell.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeToolContext } from '../helpers/tool-context.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createSandboxLayout, type SandboxLayout } from '../sandbox/sandbox-host.ts';

export const NODE_MODULES = join(import.meta.dir, '..', '..', 'node_modules');
export const EVERYTHING_SCRIPT = join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
export const MEMORY_SCRIPT = join(NODE_MODULES, '@modelcontextprotocol/server-memory/dist/index.js');
export const PROBE_SCRIPT = join(import.meta.dir, '__fixtures__', 'probe-server.mjs');

export function everythingServer(name = 'everything'): StdioMcpServerDeclaration {
  return {
    name,
    transport: 'stdio',
    command: 'node',
    args: [EVERYTHING_SCRIPT, 'stdio'],
    env: {},
    network: 'none',
    packageDirectory: NODE_MODULES,
  };
}

export function memoryServer(): StdioMcpServerDeclaration {
  return {
    name: 'memory',
    transport: 'stdio',
    command: 'node',
    args: [MEMORY_SCRIPT],
    env: {},
    network: 'none',
    stateVariable: 'MEMORY_FILE_PATH',
    stateFile: 'memory.jsonl',
    packageDirectory: NODE_MODULES,
  };
}

export function probeServer(): StdioMcpServerDeclaration {
  return {
    name: 'probe',
    transport: 'stdio',
    command: 'node',
    args: [PROBE_SCRIPT],
    env: {},
    network: 'none',
    stateVariable: 'PROBE_STATE_DIR',
    // The fixture lies in the repository, next to node_modules: both read-only.
    packageDirectory: join(import.meta.dir, '..', '..'),
  };
}

export interface ExternalSetup {
  layout: SandboxLayout;
  /** The data directory (0700): `mango.db` holds a planted secret. */
  dataDirectory: string;
  /** `<workspaces>/.mcp-state`: the users' state directories, `<user>/<server>`. */
  stateDirectory: string;
  source: ExternalToolSource;
  builtins: ToolRegistry;
  /** alice's chat: confined to her personal workspace. */
  aliceReachable: ReachableSet;
  bobReachable: ReachableSet;
  dispose(): Promise<void>;
}

export async function createExternalSetup(
  sandbox: BubblewrapSandbox,
  servers: McpServerDeclaration[],
  options: { pool?: McpConnectionPoolOptions; allowPrivate?: boolean; builtins?: ToolRegistry } = {},
): Promise<ExternalSetup> {
  const layout = await createSandboxLayout(sandbox);
  // The server's own, as the server makes it: no stdio server needs to pass through it.
  const dataDirectory = join(layout.base, 'mango-data');
  mkdirSync(dataDirectory, { mode: 0o700 });
  chmodSync(dataDirectory, 0o700);
  writeFileSync(join(dataDirectory, 'mango.db'), 'database-secret-rows\n', { mode: 0o600 });
  const stateDirectory = mcpStateDirectoryIn(layout.workspaces);
  const protectedPaths = [dataDirectory, layout.data, '/proc', '/sys', '/dev', layout.workspaces];
  const confinedTo = (home: string) =>
    computeReachableSet({
      workspaces: [{ path: home, access: 'read-write', kind: 'personal' }],
      workingDirectory: home,
      homeDirectory: home,
      confined: true,
      protectedPaths,
    });
  const aliceReachable = confinedTo(layout.alice);
  const bobReachable = confinedTo(layout.bob);
  const builtins = options.builtins ?? new ToolRegistry();
  const pool = new McpConnectionPool(options.pool);
  const source = new ExternalToolSource({
    servers: new McpServerRegistry({ operatorServers: servers }),
    builtins,
    pool,
    connector: {
      stateDirectory,
      formerStateDirectory: formerMcpStateDirectoryIn(dataDirectory),
      sandbox: () => sandbox,
      fetch: createGuardedFetch({ allowPrivate: options.allowPrivate ?? false }),
      connectTimeoutMs: 20_000,
    },
    listingAccess: async (userId) => (userId === 'bob' ? bobReachable : aliceReachable),
    log: () => {},
  });
  return {
    layout,
    dataDirectory,
    stateDirectory,
    source,
    builtins,
    aliceReachable,
    bobReachable,
    dispose: async () => {
      await source.close();
      layout.remove();
    },
  };
}

/** A loopback port nobody listens on now: the OS picks it for a probe server that stops at once. */
export async function freeLoopbackPort(): Promise<number> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
}

export interface EverythingOverHttp {
  /** The server's MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * server-everything over Streamable HTTP on a free loopback port, returned once it answers (it is given
 * up to 15 s to start on a loaded machine).
 */
export async function startEverythingOverHttp(): Promise<EverythingOverHttp> {
  const port = await freeLoopbackPort();
  const child = Bun.spawn(['node', EVERYTHING_SCRIPT, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdout: 'ignore',
    stderr: 'ignore',
  });
  const answers = () =>
    fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    );
  await waitUntil(answers, 15_000);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      child.kill();
      await child.exited;
    },
  };
}

/**
 * An `ExternalToolSource` over operator servers on loopback Streamable HTTP (`name` on `port`), with no
 * sandbox (HTTP servers need none) and private addresses allowed, as the tests of HTTP servers use it.
 */
export function loopbackHttpToolSource(
  servers: readonly { name: string; port: number }[],
  options: { connectTimeoutMs: number; userId?: string },
): ExternalToolSource {
  return new ExternalToolSource({
    servers: new McpServerRegistry({
      operatorServers: servers.map(({ name, port }) => ({
        name,
        transport: 'http' as const,
        url: `http://127.0.0.1:${port}/mcp`,
        headers: {},
      })),
    }),
    builtins: new ToolRegistry(),
    pool: new McpConnectionPool(),
    connector: {
      stateDirectory: mcpStateDirectoryIn('/nonexistent-workspaces'),
      sandbox: () => createUnsandboxedShell({ log: () => {} }),
      fetch: createGuardedFetch({ allowPrivate: true }),
      connectTimeoutMs: options.connectTimeoutMs,
    },
    listingAccess: async () =>
      makeToolContext(options.userId === undefined ? {} : { userId: options.userId }).reachable,
    log: () => {},
  });
}
