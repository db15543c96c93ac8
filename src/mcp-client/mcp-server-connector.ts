/**
 * Opens one connection to one external server for one user.
 *
 * - Streamable HTTP: the SDK transport with the guarded fetch (guarded-fetch.ts), so every connection
 *   and redirect is checked on the address actually connected, and the server's configured headers.
 * - stdio: the program runs in the shell sandbox (`ShellSandbox.prepareProgram`, the same launcher and
 *   mount plan as shell commands), seeing the chat's reachable set, plus the user's own state directory
 *   for this server read-write (`<workspaces>/.mcp-state/<user>/<server>`, mcp-state-directory.ts,
 *   named by `stateVariable`) and its `packageDirectory` read-only — never the data directory or another
 *   user's workspace or state. With `network: "none"` it has no network at all. It is offered the chat's reachable set as MCP `roots`.
 *   Before it starts, its program is checked against that sandbox (stdio-program-check.ts): a program
 *   that cannot start there is refused with the cause and the fix, never started to fail unexplained.
 * - An HTTP server is offered no roots: host paths mean nothing to it and say more than it needs.
 */
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HttpMcpServerDeclaration, StdioMcpServerDeclaration } from '../config/mcp-servers-file.ts';
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';
import type { ReachableRoot, ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import { createBoundedFetch } from './bounded-fetch.ts';
import type { FetchLike } from './guarded-fetch.ts';
import { DEFAULT_MCP_BOUNDS, type McpBounds } from './mcp-bounds.ts';
import { McpConnection } from './mcp-connection.ts';
import { type McpStateLocation, userStateDirectory } from './mcp-state-directory.ts';
import { SandboxedStdioTransport } from './sandboxed-stdio-transport.ts';
import { checkStdioProgram } from './stdio-program-check.ts';

/** Where stdio servers' state directories are (`McpStateLocation`), and how connections are made. */
export interface McpServerConnectorOptions extends McpStateLocation {
  /** The sandbox stdio servers run in (the shell tools' one). */
  sandbox: () => ShellSandbox;
  fetch: FetchLike;
  connectTimeoutMs?: number;
  /** What a connection reads and a listing holds at most; the defaults when absent. */
  bounds?: McpBounds;
}

export interface ConnectionHooks {
  onToolsChanged?: () => void;
  onClosed?: () => void;
}

export async function openStdioConnection(
  server: StdioMcpServerDeclaration,
  userId: string,
  reachable: ReachableSet,
  options: McpServerConnectorOptions,
  hooks: ConnectionHooks,
): Promise<McpConnection> {
  const sandbox = options.sandbox();
  if (!sandbox.prepareProgram || !sandbox.programView) {
    throw new ToolError(
      'execution_error',
      `The MCP server "${server.name}" cannot start: this shell sandbox cannot contain programs.`,
    );
  }
  const environment: Record<string, string> = { ...server.env };
  const extraRoots: ReachableRoot[] = [];
  if (server.stateVariable !== undefined) {
    const state = await userStateDirectory(options, userId, server.name, sandbox);
    environment[server.stateVariable] = server.stateFile ? join(state, server.stateFile) : state;
    extraRoots.push({ path: state, access: 'read-write' });
  }
  if (server.packageDirectory !== undefined) {
    extraRoots.push({ path: server.packageDirectory, access: 'read-only' });
  }
  // Checked against the sandbox that runs it, on the PATH it gets: the same decision wherever the
  // connection is opened (the server, the CLI), and a cause and a fix instead of "Connection closed".
  const view = sandbox.programView(environment);
  const program = await checkStdioProgram({
    server: server.name,
    command: server.command,
    searchPath: view.searchPath,
    systemDirectories: view.systemDirectories,
    packageDirectory: server.packageDirectory,
    roots: [...reachable.roots, ...extraRoots].map((root) => root.path),
  });
  const launch = await sandbox.prepareProgram({
    argv: [program, ...server.args],
    cwd: reachable.workingDirectory,
    reachable: { ...reachable, roots: [...reachable.roots, ...extraRoots] },
    environment,
    network: server.network,
    userId,
  });
  const bounds = options.bounds ?? DEFAULT_MCP_BOUNDS;
  const transport = new SandboxedStdioTransport(launch, bounds.maxResultBytes);
  return McpConnection.open(transport, {
    server: server.name,
    connectTimeoutMs: options.connectTimeoutMs,
    bounds,
    diagnostics: () => transport.stderrTail(),
    // The chat's reachable set, at the same paths inside the sandbox as on the host.
    roots: reachable.roots.map((root) => ({ uri: pathToFileURL(root.path).href, name: basename(root.path) })),
    ...hooks,
  });
}

export async function openHttpConnection(
  server: HttpMcpServerDeclaration,
  options: McpServerConnectorOptions,
  hooks: ConnectionHooks,
): Promise<McpConnection> {
  const bounds = options.bounds ?? DEFAULT_MCP_BOUNDS;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    // Every body read through the message limit, so a large answer is never held whole.
    fetch: createBoundedFetch(options.fetch, bounds.maxResultBytes),
    requestInit: { headers: server.headers },
    // A dropped event stream is not resumed behind the caller's back: the next call reconnects.
    reconnectionOptions: {
      maxReconnectionDelay: 1000,
      initialReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
      maxRetries: 0,
    },
  });
  return McpConnection.open(transport, {
    server: server.name,
    connectTimeoutMs: options.connectTimeoutMs,
    bounds,
    ...hooks,
  });
}
