/**
 * Which external MCP servers a user has: the operator's (from the `MANGO_MCP_SERVERS` file, offered to
 * every user, re-read by `reload`) merged with the user's own from a per-user source (servers a user
 * adds through the API; Streamable HTTP only). A user's server whose name an operator server already
 * has is left out and reported — it never shadows the operator's — so a tool name always means the
 * same server. A failing per-user source leaves that user with the operator's servers and the reason.
 */
import type { HttpMcpServerDeclaration, McpServerDeclaration } from '../config/mcp-servers-file.ts';
import { readMcpServersFile } from '../config/mcp-servers-file.ts';

/** Where a server comes from: the operator's file, or the user's own list. */
export type McpServerOrigin = 'operator' | 'user';

export type UserMcpServer = McpServerDeclaration & { origin: McpServerOrigin };

/** The servers users add themselves (the later `/api/mcp-servers` store implements it). */
export interface UserMcpServerSource {
  serversFor(userId: string): Promise<HttpMcpServerDeclaration[]>;
}

export interface McpServerSet {
  servers: UserMcpServer[];
  /** What was left out, and why (a shadowing name, a failing source). */
  problems: string[];
}

export class McpServerRegistry {
  #operator: readonly McpServerDeclaration[];
  readonly #path: string | undefined;
  readonly #userSource: UserMcpServerSource | undefined;

  /**
   * @param path the operator file, read now (a bad file throws ConfigError at start); undefined: none.
   */
  constructor(options: {
    path?: string;
    operatorServers?: readonly McpServerDeclaration[];
    userSource?: UserMcpServerSource;
  }) {
    this.#path = options.path;
    this.#userSource = options.userSource;
    this.#operator = options.operatorServers ?? (options.path ? readMcpServersFile(options.path) : []);
  }

  /** The operator's servers, as last read. */
  operatorServers(): readonly McpServerDeclaration[] {
    return this.#operator;
  }

  /**
   * Re-reads the operator file. A file that no longer parses keeps the servers in force and throws
   * the ConfigError, so a typo during a reload never takes every server away.
   * @returns the names of servers that were added, removed or changed.
   */
  reload(): string[] {
    if (!this.#path) return [];
    const next = readMcpServersFile(this.#path);
    const before = new Map(this.#operator.map((server) => [server.name, JSON.stringify(server)]));
    const after = new Map(next.map((server) => [server.name, JSON.stringify(server)]));
    const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
      (name) => before.get(name) !== after.get(name),
    );
    this.#operator = next;
    return changed;
  }

  /** The user's servers: the operator's first, then their own that do not shadow one. */
  async serversFor(userId: string): Promise<McpServerSet> {
    const servers: UserMcpServer[] = this.#operator.map((server) => ({ ...server, origin: 'operator' }));
    const problems: string[] = [];
    if (!this.#userSource) return { servers, problems };
    let own: HttpMcpServerDeclaration[];
    try {
      own = await this.#userSource.serversFor(userId);
    } catch (error) {
      problems.push(`Your own MCP servers could not be loaded: ${(error as Error).message}`);
      return { servers, problems };
    }
    const taken = new Set(servers.map((server) => server.name));
    for (const server of own) {
      if (taken.has(server.name)) {
        problems.push(
          `Your MCP server "${server.name}" is left out: the operator offers a server of that name.`,
        );
        continue;
      }
      taken.add(server.name);
      servers.push({ ...server, origin: 'user' });
    }
    return { servers, problems };
  }
}
