/**
 * MCP over Streamable HTTP (docs/mcp.md), as a web-standard handler: `Request` in, `Response` out, so
 * the app mounts it at `/mcp` behind its bearer-token auth (`app.all('/mcp', …)`).
 *
 * Guarantees:
 * - A session starts with an `initialize` POST from an authenticated user and is bound to that user
 *   for its whole life: a request that names the session with another user's token is answered
 *   exactly like an unknown session (404), so a session id reveals nothing to anyone else.
 * - Each session has its own MCP server (`createMcpToolServer`): its own freshness ledger, its
 *   user's settings, and a working directory chosen on the initialize request with the optional query
 *   parameters `?cwd=/absolute/dir&unrestricted=true` — inside the user's workspaces exactly like a
 *   chat's (omitted: the personal workspace; confined to it unless unrestricted and allowed), and
 *   checked again before every call (`bind-working-directory.ts`).
 * - Bounded memory: at most `maxSessionsPerUser` live sessions per user; opening one more closes the
 *   user's least recently used session. `DELETE` ends a session (SDK behaviour), `closeAll` ends every one.
 * - Refusals are JSON-RPC error bodies with a 4xx status, never a 500.
 */
import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { User } from '../users/user-repository.ts';
import { type BoundWorkingDirectory, bindWorkingDirectory } from '../workspaces/bind-working-directory.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { createMcpToolServer, type McpServerDependencies } from './mcp-tool-server.ts';

export const DEFAULT_MAX_MCP_SESSIONS_PER_USER = 16;

/**
 * SSE keep-alive comments every 5 s: `Bun.serve` closes a connection idle for 10 s by default, which
 * would drop the stream that carries `notifications/tools/list_changed`.
 */
const KEEP_ALIVE_MILLISECONDS = 5_000;

interface McpHttpSession {
  id: string;
  userId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsedAt: number;
}

/** The live Streamable HTTP sessions of one process, keyed by session id. */
export class McpHttpSessions {
  readonly #sessions = new Map<string, McpHttpSession>();
  readonly maxSessionsPerUser: number;
  readonly #now: () => number;

  constructor(options: { maxSessionsPerUser?: number; now?: () => number } = {}) {
    this.maxSessionsPerUser = options.maxSessionsPerUser ?? DEFAULT_MAX_MCP_SESSIONS_PER_USER;
    this.#now = options.now ?? Date.now;
  }

  /** Number of live sessions (all users). */
  get size(): number {
    return this.#sessions.size;
  }

  /** The session `id` when it exists and belongs to `userId`; marks it used. */
  find(id: string, userId: string): McpHttpSession | undefined {
    const session = this.#sessions.get(id);
    if (!session || session.userId !== userId) return undefined;
    session.lastUsedAt = this.#now();
    return session;
  }

  add(session: Omit<McpHttpSession, 'lastUsedAt'>): void {
    this.#sessions.set(session.id, { ...session, lastUsedAt: this.#now() });
    const ofUser = [...this.#sessions.values()].filter((item) => item.userId === session.userId);
    if (ofUser.length <= this.maxSessionsPerUser) return;
    const oldest = ofUser.reduce((least, item) => (item.lastUsedAt < least.lastUsedAt ? item : least));
    this.remove(oldest.id);
    oldest.transport.close().catch(() => {});
  }

  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes every session (server shutdown): running calls are aborted, streams end. */
  async closeAll(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.allSettled(sessions.map((session) => session.transport.close()));
  }
}

export interface McpHttpDependencies extends McpServerDependencies {
  sessions: McpHttpSessions;
  /** The users' workspaces: what a session may bind with `?cwd=` and what its calls reach. */
  workspaces: WorkspaceService;
  /** SSE keep-alive interval; the server passes half its idle timeout (default 5 s). */
  keepAliveMilliseconds?: number;
}

export interface McpHttpRequestOptions {
  /** The JSON body when a framework already read it (the transport then does not read the stream). */
  parsedBody?: unknown;
}

function jsonRpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
}

/**
 * Reads `?cwd=&unrestricted=` of an initialize request and binds the session, or says why not: a
 * malformed parameter is a 400, a directory the user may not bind a 422 (outside their workspaces: the
 * one fixed message, as for a chat).
 */
async function readSessionBinding(
  url: URL,
  userId: string,
  workspaces: WorkspaceService,
): Promise<BoundWorkingDirectory | { status: number; message: string }> {
  if (url.searchParams.has('restricted')) {
    return {
      status: 400,
      message:
        'Query parameter restricted no longer exists: a session is confined to its cwd unless it asks for unrestricted=true.',
    };
  }
  const unrestrictedText = url.searchParams.get('unrestricted');
  if (unrestrictedText !== null && !['true', 'false', '1', '0'].includes(unrestrictedText)) {
    return {
      status: 400,
      message: `Query parameter unrestricted must be true or false, got ${JSON.stringify(unrestrictedText)}.`,
    };
  }
  const cwd = url.searchParams.get('cwd');
  try {
    return await bindWorkingDirectory(workspaces, userId, {
      cwd: cwd === null || cwd === '' ? undefined : cwd,
      unrestricted: unrestrictedText === 'true' || unrestrictedText === '1',
    });
  } catch (error) {
    if (WorkspaceError.isInstance(error)) return { status: 422, message: error.message };
    throw error;
  }
}

/**
 * Handles one request to `/mcp` from an authenticated `user`. The caller authenticates (bearer token)
 * and passes the user; this function never sees a token.
 */
export async function handleMcpHttpRequest(
  request: Request,
  user: Pick<User, 'id'>,
  dependencies: McpHttpDependencies,
  options: McpHttpRequestOptions = {},
): Promise<Response> {
  const { sessions, workspaces, keepAliveMilliseconds, ...serverDependencies } = dependencies;
  const sessionId = request.headers.get('mcp-session-id');
  const handleOptions = options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody };

  if (sessionId !== null) {
    const session = sessions.find(sessionId, user.id);
    if (!session) return jsonRpcError(404, 'Session not found: start a new session with initialize.');
    return session.transport.handleRequest(request, handleOptions);
  }
  if (request.method !== 'POST') {
    return jsonRpcError(400, 'Bad Request: Mcp-Session-Id header is required.');
  }

  const binding = await readSessionBinding(new URL(request.url), user.id, workspaces);
  if ('status' in binding) return jsonRpcError(binding.status, binding.message);

  const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    keepAliveMs: keepAliveMilliseconds ?? KEEP_ALIVE_MILLISECONDS,
    onsessioninitialized: (id): void => sessions.add({ id, userId: user.id, transport }),
    onsessionclosed: (id) => sessions.remove(id),
  });
  const server = createMcpToolServer({
    ...serverDependencies,
    userId: user.id,
    resolveAccess: binding.resolveAccess,
    onClose: () => {
      if (transport.sessionId !== undefined) sessions.remove(transport.sessionId);
    },
  });
  await server.connect(transport);
  const response = await transport.handleRequest(request, handleOptions);
  // Not an initialize request (the transport answered 400): nothing to keep.
  if (transport.sessionId === undefined) await server.close();
  return response;
}
