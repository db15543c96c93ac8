/**
 * The MCP servers a user adds themselves (`/api/mcp-servers`): Streamable HTTP only, `{name, url,
 * headers?}`, each user's own. It guarantees:
 *
 * - A name follows the operator file's rule and never shadows an operator server's (409); a user's
 *   names are unique (409); an unknown name is 404, whoever owns it.
 * - Header values are stored sealed with `MANGO_SECRET_KEY`; without the key, a server with headers is
 *   refused (422) and one without is accepted. Values are never returned: a view lists header names.
 * - A URL is `http(s)` without credentials. A literal address the address check refuses (loopback,
 *   private, link-local, in any spelling) or `localhost` is refused at once (422), unless the operator
 *   allows private addresses; a stored one is shown as failed with that reason. Where a host name may
 *   connect is decided at every connection (a name can resolve elsewhere later).
 * - After a change, what was known of that server for that user (its tools, its connection) is
 *   dropped, so the next listing uses the new definition.
 * - As a `UserMcpServerSource` it hands the registry the user's servers with their headers opened.
 */

import { ConfigError } from '../config/config-error.ts';
import type { HttpMcpServerDeclaration } from '../config/mcp-servers-file.ts';
import {
  MCP_SERVER_NAME_PATTERN,
  MCP_SERVER_NAME_RULE,
  parseMcpServersFile,
} from '../config/mcp-servers-file.ts';
import type { UserMcpServerView } from '../contracts/user-mcp-server-view.ts';
import { MangoError } from '../errors/mango-error.ts';
import type { McpServerState } from './external-tool-source.ts';
import type { HeaderCipher } from './header-cipher.ts';
import { judgeUrlHost } from './judge-address.ts';
import type { UserMcpServerSource } from './mcp-server-registry.ts';
import type { StoredUserMcpServer, UserMcpServerRepository } from './user-mcp-server-repository.ts';

export type McpServerErrorCode = 'not_found' | 'name_taken' | 'invalid_request' | 'operator_server';

/** A refused request about a user's MCP server; `src/http/http-errors.ts` maps the code to a status. */
export class McpServerError extends MangoError {
  override readonly code: McpServerErrorCode;

  constructor(code: McpServerErrorCode, message: string) {
    super(code, message);
    this.name = 'McpServerError';
    this.code = code;
  }
}

export interface UserMcpServerInput {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

export interface UserMcpServerServiceOptions {
  repository: UserMcpServerRepository;
  /** Undefined without `MANGO_SECRET_KEY`. */
  cipher: HeaderCipher | undefined;
  /** The operator's server names, now. */
  operatorNames: () => readonly string[];
  now: () => number;
  /** `MANGO_MCP_ALLOW_PRIVATE=1`: literal loopback, private and link-local hosts are accepted too. */
  allowPrivate: boolean;
}

/** Operations that need the tool source, given after both exist (the source reads this service). */
export interface McpServerStateAccess {
  serverStates(userId: string): Promise<{ servers: McpServerState[]; problems: string[] }>;
  forgetUserServer(userId: string, server: string): Promise<void>;
}

export class UserMcpServerService implements UserMcpServerSource {
  readonly #options: UserMcpServerServiceOptions;
  #states: McpServerStateAccess | undefined;

  constructor(options: UserMcpServerServiceOptions) {
    this.#options = options;
  }

  attach(states: McpServerStateAccess): void {
    this.#states = states;
  }

  async serversFor(userId: string): Promise<HttpMcpServerDeclaration[]> {
    const stored = await this.#options.repository.list(userId);
    return stored.map((server) => ({
      name: server.name,
      transport: 'http',
      url: server.url,
      headers: server.sealedHeaders === null ? {} : this.#open(server),
    }));
  }

  /** The operator's servers and the user's own, each with its state. */
  async list(userId: string): Promise<{ servers: UserMcpServerView[]; problems: string[] }> {
    const [stored, states] = await Promise.all([
      this.#options.repository.list(userId),
      this.#states?.serverStates(userId) ?? Promise.resolve({ servers: [], problems: [] }),
    ]);
    const own = new Map(stored.map((server) => [server.name, server]));
    const servers = states.servers.map((state): UserMcpServerView => {
      const { name, origin, transport, ...rest } = state;
      const mine = origin === 'user' ? own.get(name) : undefined;
      const refusal = mine === undefined ? undefined : this.#hostRefusal(mine.url);
      return {
        name,
        origin,
        transport,
        ...(mine ? { url: mine.url, headerNames: mine.headerNames } : {}),
        state: refusal === undefined ? rest : { status: 'failed', error: refusal },
      };
    });
    return { servers, problems: states.problems };
  }

  async create(userId: string, input: unknown): Promise<UserMcpServerView> {
    const parsed = this.#parse(input, undefined);
    const now = new Date(this.#options.now()).toISOString();
    const stored = this.#stored(userId, parsed, now, now);
    if (!(await this.#options.repository.insert(stored))) {
      throw new McpServerError('name_taken', `You already have an MCP server named "${parsed.name}".`);
    }
    await this.#states?.forgetUserServer(userId, parsed.name);
    return this.#viewOf(userId, stored);
  }

  async update(userId: string, name: string, patch: unknown): Promise<UserMcpServerView> {
    const existing = await this.#requireOwn(userId, name);
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw new McpServerError('invalid_request', 'The body must be an object with url and/or headers.');
    }
    const body = patch as Record<string, unknown>;
    if ('name' in body && body.name !== name) {
      throw new McpServerError('invalid_request', 'A server cannot be renamed; add it under the new name.');
    }
    const headers =
      'headers' in body ? body.headers : existing.sealedHeaders === null ? undefined : this.#open(existing);
    const parsed = this.#parse({ name, url: body.url ?? existing.url, headers }, existing);
    const stored = this.#stored(
      userId,
      parsed,
      existing.createdAt,
      new Date(this.#options.now()).toISOString(),
    );
    if (!(await this.#options.repository.update(stored))) throw this.#notFound(name);
    await this.#states?.forgetUserServer(userId, name);
    return this.#viewOf(userId, stored);
  }

  async delete(userId: string, name: string): Promise<void> {
    await this.#requireOwn(userId, name);
    if (!(await this.#options.repository.delete(userId, name))) throw this.#notFound(name);
    await this.#states?.forgetUserServer(userId, name);
  }

  async #viewOf(userId: string, stored: StoredUserMcpServer): Promise<UserMcpServerView> {
    const { servers } = await this.list(userId);
    const view = servers.find((server) => server.origin === 'user' && server.name === stored.name);
    return (
      view ?? {
        name: stored.name,
        origin: 'user',
        transport: 'http',
        url: stored.url,
        headerNames: stored.headerNames,
        state: { status: 'failed', error: 'Not offered: an operator server has this name.' },
      }
    );
  }

  async #requireOwn(userId: string, name: string): Promise<StoredUserMcpServer> {
    if (this.#options.operatorNames().includes(name)) {
      throw new McpServerError(
        'operator_server',
        `"${name}" is the operator's MCP server; only the operator changes it.`,
      );
    }
    const existing = await this.#options.repository.get(userId, name);
    if (!existing) throw this.#notFound(name);
    return existing;
  }

  #notFound(name: string): McpServerError {
    return new McpServerError(
      'not_found',
      `You have no MCP server named ${JSON.stringify(name.slice(0, 80))}.`,
    );
  }

  #open(server: StoredUserMcpServer): Record<string, string> {
    if (!this.#options.cipher) {
      throw new Error(`the headers of "${server.name}" cannot be opened: MANGO_SECRET_KEY is not set.`);
    }
    return this.#options.cipher.open(server.sealedHeaders ?? '');
  }

  #stored(
    userId: string,
    server: HttpMcpServerDeclaration,
    createdAt: string,
    updatedAt: string,
  ): StoredUserMcpServer {
    const names = Object.keys(server.headers);
    return {
      userId,
      name: server.name,
      url: server.url,
      headerNames: names,
      sealedHeaders: names.length === 0 ? null : (this.#options.cipher?.seal(server.headers) ?? null),
      createdAt,
      updatedAt,
    };
  }

  /** Why the host of `url` is refused before any connection, or undefined (see the module comment). */
  #hostRefusal(url: string, shown = url): string | undefined {
    if (this.#options.allowPrivate) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return undefined; // the file's rules report a malformed URL
    }
    const verdict = judgeUrlHost(parsed);
    if (verdict.allowed) return undefined;
    return `url ${JSON.stringify(shown)} names ${verdict.reason}: external MCP servers may not reach loopback, link-local or private addresses unless the operator sets MANGO_MCP_ALLOW_PRIVATE=1.`;
  }

  /** Validates with the operator file's rules, so both kinds of server mean the same. */
  #parse(input: unknown, existing: StoredUserMcpServer | undefined): HttpMcpServerDeclaration {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new McpServerError('invalid_request', 'The body must be an object {name, url, headers?}.');
    }
    const { name, url, headers } = input as Record<string, unknown>;
    const unknown = Object.keys(input).filter((key) => !['name', 'url', 'headers'].includes(key));
    if (unknown.length > 0) {
      throw new McpServerError(
        'invalid_request',
        `Unknown field ${JSON.stringify(unknown[0])}; the fields are name, url, headers.`,
      );
    }
    if (typeof name !== 'string' || !MCP_SERVER_NAME_PATTERN.test(name)) {
      throw new McpServerError(
        'invalid_request',
        `name must be ${MCP_SERVER_NAME_RULE}, got ${JSON.stringify(name)}.`,
      );
    }
    if (!existing && this.#options.operatorNames().includes(name)) {
      throw new McpServerError(
        'name_taken',
        `"${name}" is the name of an operator's MCP server; choose another.`,
      );
    }
    let declaration: HttpMcpServerDeclaration;
    try {
      const [parsed] = parseMcpServersFile(
        JSON.stringify({
          mcpServers: { [name]: { type: 'http', url, ...(headers === undefined ? {} : { headers }) } },
        }),
        'request',
      );
      declaration = parsed as HttpMcpServerDeclaration;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      const detail = error.message.replace(`MANGO_MCP_SERVERS file request: mcpServers.${name}.`, '');
      throw new McpServerError('invalid_request', detail);
    }
    const refusal = this.#hostRefusal(declaration.url, typeof url === 'string' ? url : declaration.url);
    if (refusal !== undefined) throw new McpServerError('invalid_request', refusal);
    if (Object.keys(declaration.headers).length > 0 && !this.#options.cipher) {
      throw new McpServerError(
        'invalid_request',
        'Servers with headers cannot be added here: the operator has not set MANGO_SECRET_KEY, which they are stored encrypted with.',
      );
    }
    return declaration;
  }
}
