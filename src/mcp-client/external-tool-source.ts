/**
 * The per-user tool source with external MCP servers (docs/mcp-client.md): a user's registry is the
 * builtins plus the tools of every server that user has (mcp-server-registry.ts), each named
 * `mcp__<server>__<tool>` and built as an ordinary `RegisteredTool`.
 *
 * - A server's tool list is fetched on first need and kept per user and server and, for a program on
 *   stdio, per reachable set: a server started with a granted directory in its arguments
 *   (`mcp-server-git --repository DIR`) can only start where DIR is reachable, so a chat working there
 *   is offered its tools even though a listing from the personal workspace fails. A list is kept until
 *   the server sends `list_changed` (it is then listed again on the connection that said so), a reload
 *   changes the server, or a new connection lists differently; it outlives an idle program that was
 *   stopped. What is kept is bounded per user and server and per user across all their servers
 *   (catalog-cache.ts); a list dropped for room is listed again when needed.
 * - A listing over a bound (tools, bytes per description, schema or listing, bytes of one message:
 *   mcp-bounds.ts) is refused whole: the server is `failed` with the bound in its error.
 * - A chat's registry holds what its own reachable set lists. The settings page (no reachable set)
 *   shows the list from the personal workspace together with every other list known for the user, so
 *   a tool that exists only in one chat's directory can still be configured.
 * - A server that cannot be reached, times out or fails to list is left out of that user's registry
 *   with its error in `serverStates`; it never fails the turn, listing or call of any other tool. Only
 *   the first listing of a server is waited for (bounded by the connect timeout); after a failure the
 *   next listings answer with it at once and retry in the background, so a hanging server delays no
 *   later turn.
 * - Calls go through the connection pool keyed by user and server and, for a program on stdio, by the
 *   reachable set of the call: a chat's program sees that chat's files and no other's.
 */

import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerStatus } from '../contracts/user-mcp-server-view.ts';
import { errorMessage } from '../errors/error-message.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import { ToolError } from '../tools/errors.ts';
import { ToolRegistry } from '../tools/registry.ts';
import type { RegisteredTool, ToolContext } from '../tools/types.ts';
import type { UserToolSource } from '../tools/user-tool-source.ts';
import { type Catalog, CatalogCache, type CatalogFailure, ownerKeyOf, ownerOf } from './catalog-cache.ts';
import { buildExternalTool, EXTERNAL_TIMEOUT_SECONDS } from './external-mcp-tool.ts';
import { nameExternalTools } from './external-tool-name.ts';
import { mapExternalToolResult } from './external-tool-result.ts';
import { DEFAULT_MCP_BOUNDS } from './mcp-bounds.ts';
import { type McpConnection, McpSessionExpiredError, type ToolListing } from './mcp-connection.ts';
import type { McpConnectionPool } from './mcp-connection-pool.ts';
import {
  type ConnectionHooks,
  type McpServerConnectorOptions,
  openHttpConnection,
  openStdioConnection,
} from './mcp-server-connector.ts';
import type { McpServerRegistry, UserMcpServer } from './mcp-server-registry.ts';

/** What the tools page and `mango mcp-servers list` show of one server for one user. */
export interface McpServerState extends McpServerStatus {
  name: string;
  origin: UserMcpServer['origin'];
  transport: UserMcpServer['transport'];
}

export interface ExternalToolSourceOptions {
  servers: McpServerRegistry;
  /** The builtins every user has, first in each registry. */
  builtins: ToolRegistry;
  pool: McpConnectionPool;
  connector: McpServerConnectorOptions;
  /** What a program started to list tools (not for a chat) may reach: the user's personal workspace. */
  listingAccess: (userId: string) => Promise<ReachableSet>;
  log?: (line: string) => void;
}

/** The scope of a server over HTTP, which sees no files: one list and one connection per user. */
const NO_SCOPE: ReachableSet = { workingDirectory: '/', homeDirectory: '/', roots: [], protectedPaths: [] };

/** The stdio key adds what the program was started with: the call's directory and roots. */
function scopeKeyOf(userId: string, server: UserMcpServer, reachable: ReachableSet): string {
  if (server.transport !== 'stdio') return ownerKeyOf(userId, server.name);
  const roots = reachable.roots.map((root) => `${root.access}:${root.path}`).sort();
  return JSON.stringify([userId, server.name, reachable.workingDirectory, roots]);
}

export class ExternalToolSource implements UserToolSource {
  readonly #options: ExternalToolSourceOptions;
  readonly #catalogs: CatalogCache;
  readonly #listing = new Map<string, Promise<Catalog | CatalogFailure>>();
  readonly #log: (line: string) => void;

  constructor(options: ExternalToolSourceOptions) {
    this.#options = options;
    this.#catalogs = new CatalogCache((options.connector.bounds ?? DEFAULT_MCP_BOUNDS).maxCachedBytesPerUser);
    this.#log = options.log ?? ((line) => console.error(line));
  }

  /**
   * The user's tools: for a chat, what its reachable set lists (`reachable`); without one (the
   * settings page), every tool known for the user (see the module comment).
   */
  async registryFor(userId: string, reachable?: ReachableSet): Promise<ToolRegistry> {
    const registry = new ToolRegistry();
    for (const tool of this.#options.builtins.list()) registry.register(tool);
    const { servers } = await this.#options.servers.serversFor(userId);
    const catalogs = await Promise.all(
      servers.map(async (server) => {
        const catalog = await this.#catalog(userId, server, reachable);
        return reachable === undefined ? this.#withOtherScopes(userId, server, catalog) : catalog;
      }),
    );
    for (const catalog of catalogs) {
      for (const tool of catalog.tools ?? []) {
        if (!registry.get(tool.definition.name)) registry.register(tool);
      }
    }
    return registry;
  }

  /** Every server of the user with its state, listing those not listed yet. */
  async serverStates(userId: string): Promise<{ servers: McpServerState[]; problems: string[] }> {
    const { servers, problems } = await this.#options.servers.serversFor(userId);
    const states = await Promise.all(
      servers.map(async (server): Promise<McpServerState> => {
        const catalog = this.#withOtherScopes(userId, server, await this.#catalog(userId, server, undefined));
        const base = { name: server.name, origin: server.origin, transport: server.transport };
        if (catalog.error !== undefined) return { ...base, status: 'failed', error: catalog.error };
        return {
          ...base,
          status: 'connected',
          toolCount: catalog.tools.length,
          tools: catalog.tools.map((tool) => tool.definition.name),
        };
      }),
    );
    return { servers: states, problems };
  }

  /**
   * `catalog` (the personal workspace's) with the tools of every other list known for the user and
   * server; a failure stands only when no list has tools.
   */
  #withOtherScopes(
    userId: string,
    server: UserMcpServer,
    catalog: Catalog | CatalogFailure,
  ): Catalog | CatalogFailure {
    const others = this.#catalogs
      .listsOf(userId, server.name)
      .filter(([, known]) => known !== catalog && known.tools !== undefined);
    if (others.length === 0) return catalog;
    const tools = [...(catalog.tools ?? [])];
    // A merged view, never kept: its size is what its parts cost.
    let bytes = catalog.tools === undefined ? 0 : catalog.bytes;
    for (const [, known] of others) {
      bytes += known.tools === undefined ? 0 : known.bytes;
      for (const tool of known.tools ?? []) {
        if (!tools.some((existing) => existing.definition.name === tool.definition.name)) tools.push(tool);
      }
    }
    return { tools, bytes };
  }

  /** Forgets what is known of `server` (all users), closing its connections: a reload changed it. */
  async forgetServer(server: string): Promise<void> {
    this.#catalogs.drop((key) => ownerOf(key)[1] === server);
    await this.#options.pool.close((key) => ownerOf(key)[1] === server);
  }

  /** Forgets one user's list of one server and closes that user's connections to it (it changed). */
  async forgetUserServer(userId: string, server: string): Promise<void> {
    const mine = (key: string) => {
      const [owner, name] = ownerOf(key);
      return owner === userId && name === server;
    };
    this.#catalogs.drop(mine);
    await this.#options.pool.close(mine);
  }

  async close(): Promise<void> {
    this.#catalogs.clear();
    await this.#options.pool.close();
  }

  #hooks(userId: string, server: UserMcpServer, scope: ReachableSet, key: string): ConnectionHooks {
    return {
      // Listed again at once, on the connection that said so (its program is the one that changed).
      onToolsChanged: () => {
        if (!this.#listing.has(key)) void this.#list(userId, server, key, scope);
      },
    };
  }

  #open(userId: string, server: UserMcpServer, reachable: ReachableSet, key: string): Promise<McpConnection> {
    const hooks = this.#hooks(userId, server, reachable, key);
    if (server.transport === 'http') return openHttpConnection(server, this.#options.connector, hooks);
    return openStdioConnection(server, userId, reachable, this.#options.connector, hooks);
  }

  /**
   * The connection for a call with `reachable`, or for listing (a program then sees the user's
   * personal workspace, as a chat there would, so that chat reuses the same program).
   */
  async #connection(
    userId: string,
    server: UserMcpServer,
    given: ReachableSet | undefined,
  ): Promise<{ connection: McpConnection; key: string }> {
    const reachable =
      given ?? (server.transport === 'stdio' ? await this.#options.listingAccess(userId) : undefined);
    const scope = reachable ?? NO_SCOPE;
    const key = scopeKeyOf(userId, server, scope);
    const connection = await this.#options.pool.acquire(key, userId, () =>
      this.#open(userId, server, scope, key),
    );
    return { connection, key };
  }

  /** The reachable set a listing for `given` runs with: a chat's own, else the listing access. */
  async #listingScope(userId: string, server: UserMcpServer, given: ReachableSet | undefined) {
    if (server.transport !== 'stdio') return NO_SCOPE;
    return given ?? (await this.#options.listingAccess(userId));
  }

  async #catalog(
    userId: string,
    server: UserMcpServer,
    given: ReachableSet | undefined,
  ): Promise<Catalog | CatalogFailure> {
    const scope = await this.#listingScope(userId, server, given);
    const key = scopeKeyOf(userId, server, scope);
    const known = this.#catalogs.get(key);
    if (known?.tools) return known;
    const running = this.#listing.get(key);
    if (known) {
      // A failure answers at once; a retry runs behind it (the pool's backoff paces the attempts).
      if (!running) void this.#list(userId, server, key, scope);
      return known;
    }
    return running ?? this.#list(userId, server, key, scope);
  }

  #list(
    userId: string,
    server: UserMcpServer,
    key: string,
    scope: ReachableSet,
  ): Promise<Catalog | CatalogFailure> {
    const listing = (async (): Promise<Catalog | CatalogFailure> => {
      try {
        const { connection, key: connectionKey } = await this.#connection(userId, server, scope);
        let listed: ToolListing;
        try {
          listed = await connection.listTools();
        } finally {
          // A listing is a use: the idle clock starts over, and a user waiting under the cap may go on.
          this.#options.pool.touch(connectionKey);
        }
        const catalog = { tools: this.#build(userId, server, listed.tools), bytes: listed.bytes };
        this.#catalogs.keep(key, catalog);
        return catalog;
      } catch (error) {
        const failure = { error: errorMessage(error) };
        this.#catalogs.keep(key, failure);
        return failure;
      } finally {
        this.#listing.delete(key);
      }
    })();
    this.#listing.set(key, listing);
    return listing;
  }

  #build(userId: string, server: UserMcpServer, listed: readonly Tool[]): RegisteredTool[] {
    const naming = nameExternalTools(
      server.name,
      listed.map((tool) => tool.name),
    );
    for (const collision of naming.collisions) {
      this.#log(
        `[mango] MCP server "${server.name}": tool "${collision.tool}" left out, its name ${collision.name} is taken by "${collision.keptBy}".`,
      );
    }
    const tools: RegisteredTool[] = [];
    for (const tool of listed) {
      const name = naming.names.get(tool.name);
      if (name === undefined || tools.some((existing) => existing.definition.name === name)) continue;
      tools.push(
        buildExternalTool({
          server: server.name,
          tool,
          name,
          call: (args, context) => this.#call(userId, server, tool.name, args, context),
        }),
      );
    }
    return tools;
  }

  async #call(
    userId: string,
    server: UserMcpServer,
    tool: string,
    args: Record<string, unknown>,
    context: ToolContext,
  ): Promise<unknown> {
    if (context.userId !== userId) {
      throw new ToolError(
        'permission_denied',
        `This tool belongs to another user's MCP server "${server.name}".`,
      );
    }
    const callOnce = async () => {
      const { connection, key } = await this.#connection(userId, server, context.reachable);
      try {
        return await connection.callTool(tool, args, {
          signal: context.signal,
          // The tool's own budget (executeTool) ends the call first; this only bounds the SDK's wait.
          timeoutMs: (EXTERNAL_TIMEOUT_SECONDS.max + 30) * 1000,
          onProgress: (progress) =>
            context.onProgress({
              type: 'external_progress',
              completed: progress.progress,
              ...(progress.total === undefined ? {} : { total: progress.total }),
              ...(progress.message === undefined ? {} : { message: progress.message }),
            }),
        });
      } finally {
        this.#options.pool.touch(key);
      }
    };
    let result: CallToolResult;
    try {
      result = await callOnce();
    } catch (error) {
      // The server restarted and refused the request unrun: a new session, and the call once more.
      // Any other failure after the request was sent is never retried (it may have run).
      if (!(error instanceof McpSessionExpiredError)) throw error;
      result = await callOnce();
    }
    return await mapExternalToolResult(result, { server: server.name, tool, context });
  }
}
