/**
 * The server's external MCP tools, built from the environment: `MANGO_MCP_SERVERS` (the operator
 * file, read now — a malformed file stops the start with its `ConfigError`) and
 * `MANGO_MCP_ALLOW_PRIVATE`. Without a file there are still user-added servers when a per-user source
 * is given; without either, there is no source and users have the builtins only. `reload()` re-reads
 * the file (SIGHUP) and drops what it knew of every server that changed.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { hostShellSandbox } from '../tools/shell/sandbox/host-shell-sandbox.ts';
import type { ShellSandbox } from '../tools/shell/sandbox/shell-sandbox.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { ExternalToolSource } from './external-tool-source.ts';
import { createGuardedFetch } from './guarded-fetch.ts';
import { McpConnectionPool, type McpConnectionPoolOptions } from './mcp-connection-pool.ts';
import { McpServerRegistry, type UserMcpServerSource } from './mcp-server-registry.ts';

export interface ExternalTools {
  source: ExternalToolSource;
  servers: McpServerRegistry;
  /** Re-reads the operator file; returns the servers that changed. @throws ConfigError, keeping the old ones. */
  reload(): Promise<string[]>;
  close(): Promise<void>;
}

export interface ExternalToolsOptions {
  environment: Environment;
  builtins: ToolRegistry;
  dataDirectory: string;
  workspaces: WorkspaceService;
  userServers?: UserMcpServerSource;
  sandbox?: () => ShellSandbox;
  pool?: McpConnectionPoolOptions;
  connectTimeoutMs?: number;
  log?: (line: string) => void;
}

/** The external tools, or undefined when no server can exist (no file, no per-user source). */
export function createExternalTools(options: ExternalToolsOptions): ExternalTools | undefined {
  const path = readVariable(options.environment, 'MANGO_MCP_SERVERS');
  if (path === undefined && options.userServers === undefined) return undefined;
  const allowPrivate = readVariable(options.environment, 'MANGO_MCP_ALLOW_PRIVATE') === '1';
  const servers = new McpServerRegistry({ path, userSource: options.userServers });
  const source = new ExternalToolSource({
    servers,
    builtins: options.builtins,
    pool: new McpConnectionPool(options.pool),
    connector: {
      dataDirectory: options.dataDirectory,
      sandbox: options.sandbox ?? hostShellSandbox,
      fetch: createGuardedFetch({ allowPrivate }),
      connectTimeoutMs: options.connectTimeoutMs,
    },
    listingAccess: async (userId) =>
      (await options.workspaces.reachableSetFor(userId, { workingDirectory: null, confined: true }))
        .reachable,
    log: options.log,
  });
  return {
    source,
    servers,
    async reload() {
      const changed = servers.reload();
      await Promise.all(changed.map((name) => source.forgetServer(name)));
      return changed;
    },
    close: () => source.close(),
  };
}
