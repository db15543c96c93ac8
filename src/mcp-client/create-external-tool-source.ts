/**
 * The server's external MCP tools, built from the environment: `MANGO_MCP_SERVERS` (the operator
 * file, read now — a malformed file stops the start with its `ConfigError`), `MANGO_MCP_ALLOW_PRIVATE`
 * and the bounds on what servers send (mcp-bounds.ts). Without a file there are still user-added
 * servers when a per-user source is given; without either, there is no source and users have the
 * builtins only. `reload()` re-reads the file (SIGHUP) and drops what it knew of every server that
 * changed.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import { hostShellSandbox } from '../sandbox/host-shell-sandbox.ts';
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { ExternalToolSource } from './external-tool-source.ts';
import { createGuardedFetch } from './guarded-fetch.ts';
import { HeaderCipher } from './header-cipher.ts';
import { readMcpBounds } from './mcp-bounds.ts';
import { McpConnectionPool, type McpConnectionPoolOptions } from './mcp-connection-pool.ts';
import { McpServerRegistry } from './mcp-server-registry.ts';
import { formerMcpStateDirectoryIn, mcpStateDirectoryIn } from './mcp-state-directory.ts';
import type { UserMcpServerRepository } from './user-mcp-server-repository.ts';
import { UserMcpServerService } from './user-mcp-server-service.ts';

export interface ExternalTools {
  source: ExternalToolSource;
  servers: McpServerRegistry;
  /** The servers users add themselves; undefined when there is no store for them. */
  userServers: UserMcpServerService | undefined;
  /** Re-reads the operator file; returns the servers that changed. @throws ConfigError, keeping the old ones. */
  reload(): Promise<string[]>;
  close(): Promise<void>;
}

export interface ExternalToolsOptions {
  environment: Environment;
  builtins: ToolRegistry;
  /**
   * The server's data directory, where older versions kept the stdio servers' state (`mcp-state/`);
   * it is moved from there into the workspaces directory at first use (mcp-state-directory.ts).
   */
  dataDirectory: string;
  /** The users' workspaces; the stdio servers' state lives in its directory too. */
  workspaces: WorkspaceService;
  /** Where users' own servers are stored (the database); without it users cannot add servers. */
  userServerRepository?: UserMcpServerRepository;
  now?: () => number;
  sandbox?: () => ShellSandbox;
  pool?: McpConnectionPoolOptions;
  connectTimeoutMs?: number;
  log?: (line: string) => void;
}

/** The external tools, or undefined when no server can exist (no file, no store for users' own). */
export function createExternalTools(options: ExternalToolsOptions): ExternalTools | undefined {
  const path = readVariable(options.environment, 'MANGO_MCP_SERVERS');
  if (path === undefined && options.userServerRepository === undefined) return undefined;
  const allowPrivate = readVariable(options.environment, 'MANGO_MCP_ALLOW_PRIVATE') === '1';
  const secretKey = readVariable(options.environment, 'MANGO_SECRET_KEY');
  const previousKey = readVariable(options.environment, 'MANGO_SECRET_KEY_PREVIOUS');
  let servers: McpServerRegistry | undefined;
  const userServers = options.userServerRepository
    ? new UserMcpServerService({
        repository: options.userServerRepository,
        cipher: secretKey === undefined ? undefined : new HeaderCipher(secretKey, previousKey),
        operatorNames: () => servers?.operatorServers().map((server) => server.name) ?? [],
        now: options.now ?? Date.now,
        allowPrivate,
      })
    : undefined;
  servers = new McpServerRegistry({ path, userSource: userServers });
  const source = new ExternalToolSource({
    servers,
    builtins: options.builtins,
    pool: new McpConnectionPool(options.pool),
    connector: {
      stateDirectory: mcpStateDirectoryIn(options.workspaces.workspacesDirectory),
      formerStateDirectory: formerMcpStateDirectoryIn(options.dataDirectory),
      log: options.log,
      sandbox: options.sandbox ?? hostShellSandbox,
      fetch: createGuardedFetch({ allowPrivate }),
      connectTimeoutMs: options.connectTimeoutMs,
      bounds: readMcpBounds(options.environment),
    },
    listingAccess: async (userId) =>
      (await options.workspaces.reachableSetFor(userId, { workingDirectory: null, confined: true }))
        .reachable,
    log: options.log,
  });
  userServers?.attach(source);
  const registry = servers;
  return {
    source,
    servers: registry,
    userServers,
    async reload() {
      const changed = registry.reload();
      await Promise.all(changed.map((name) => source.forgetServer(name)));
      return changed;
    },
    close: () => source.close(),
  };
}
