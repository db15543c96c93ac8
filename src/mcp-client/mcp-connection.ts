/**
 * One live MCP client session with one external server, over any SDK transport. It bounds the
 * handshake (a server that does not answer `initialize` in time is given up and its transport closed),
 * lists every page of tools, calls a tool with the caller's signal (an abort is sent to the server as
 * `notifications/cancelled`) and progress callback, and reports `notifications/tools/list_changed`.
 * Once its transport closes (the program exited, the HTTP session ended) it is `closed` for good and
 * every call in flight fails with an `execution_error` that names the server and, for a program, the
 * last words on its stderr; the pool opens a new one.
 *
 * Over HTTP the connection is also lost when an event stream breaks (the server died or restarted in
 * the middle of a call): the SDK reports that only as an error, and the call would wait out its whole
 * budget, so every call in flight fails at once, naming the server. A request the server refused with
 * 404 because it no longer knows the session (it restarted) was never run: it fails as
 * McpSessionExpiredError, which a caller may answer by opening a new session and sending it once more.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ListRootsRequestSchema,
  McpError,
  type Root,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../errors/error-message.ts';
import { ToolError } from '../tools/errors.ts';
import { DEFAULT_MCP_BOUNDS, type McpBounds } from './mcp-bounds.ts';
import { ToolListingMeter } from './tool-listing-meter.ts';

/** How long a server has to answer the handshake or a tool listing. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000;
/** Pages of `tools/list` followed at most (a server that pages forever is cut off). */
const MAX_TOOL_PAGES = 20;

export interface McpConnectionOptions {
  /** The server's name, for messages. */
  server: string;
  connectTimeoutMs?: number;
  /** Called when the server says its tool list changed. */
  onToolsChanged?: () => void;
  /** Called once when the connection closes. */
  onClosed?: () => void;
  /** What the program said last on stderr (stdio only), for messages. */
  diagnostics?: () => string;
  /**
   * The directories the server may work in, offered as MCP `roots` (`roots/list`); absent, the client
   * declares no roots. Only a program in the sandbox gets them: they are paths as it sees them.
   */
  roots?: readonly Root[];
  /** What a listing may hold; the defaults when absent. */
  bounds?: McpBounds;
}

/** A server's tools with what they cost as JSON (what keeping them costs). */
export interface ToolListing {
  tools: Tool[];
  bytes: number;
}

export interface McpCallOptions {
  signal: AbortSignal;
  /** Progress the server reports for this call. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The longest the SDK waits for the result; the tool's own budget normally ends the call first. */
  timeoutMs: number;
}

function messageOf(error: unknown): string {
  return errorMessage(error);
}

/** The SDK's words for an event stream that ended without the answers it was carrying. */
const LOST_STREAM_PREFIXES = [
  'SSE stream disconnected',
  'Failed to reconnect',
  'Maximum reconnection attempts',
];

function isLostStream(error: unknown): boolean {
  const message = messageOf(error);
  return LOST_STREAM_PREFIXES.some((prefix) => message.startsWith(prefix));
}

/** The socket of a request in flight was cut (the server died before its answer began). */
function isCutSocket(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** A request the server answered with 404 "Session not found": it never ran (see the module comment). */
export class McpSessionExpiredError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('execution_error', message, options);
    this.name = 'McpSessionExpiredError';
  }
}

function isSessionExpired(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}

export class McpConnection {
  readonly #client: Client;
  readonly #options: McpConnectionOptions;
  #closed = false;
  #inFlight = 0;
  /** Aborted, with the failure every call in flight gets, when the connection is lost. */
  readonly #lost = new AbortController();

  private constructor(client: Client, options: McpConnectionOptions) {
    this.#client = client;
    this.#options = options;
  }

  /**
   * Connects over `transport` and completes the handshake.
   * @throws ToolError `execution_error` naming the server when it cannot be reached or does not answer.
   */
  static async open(transport: Transport, options: McpConnectionOptions): Promise<McpConnection> {
    const client = new Client(
      { name: 'mango-tools', version: '0.1.0' },
      { capabilities: options.roots === undefined ? {} : { roots: { listChanged: false } } },
    );
    const connection = new McpConnection(client, options);
    client.onclose = () => connection.#markClosed();
    client.onerror = (error) => {
      if (isLostStream(error)) connection.#lose(error);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      options.onToolsChanged?.();
    });
    const roots = options.roots;
    if (roots !== undefined)
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [...roots] }));
    const timeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => {});
      connection.#markClosed();
      throw connection.#failure('could not be connected', error);
    }
    return connection;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Calls and listings running now; an idle connection has none. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /**
   * Every tool the server lists, all pages. A listing counts as in flight, like a call.
   * @throws ListingRefusedError when the listing goes over a bound (tool-listing-meter.ts).
   */
  async listTools(): Promise<ToolListing> {
    this.#inFlight += 1;
    try {
      return await this.#listAllTools();
    } finally {
      this.#inFlight -= 1;
    }
  }

  async #listAllTools(): Promise<ToolListing> {
    const tools: Tool[] = [];
    const meter = new ToolListingMeter(this.#options.server, this.#options.bounds ?? DEFAULT_MCP_BOUNDS);
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      let result: Awaited<ReturnType<Client['listTools']>>;
      try {
        result = await this.#client.listTools(cursor === undefined ? undefined : { cursor }, {
          timeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        });
      } catch (error) {
        throw this.#failure('could not list its tools', error);
      }
      meter.add(result);
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return { tools, bytes: meter.bytes };
  }

  /**
   * Calls one tool. A cancel becomes the SDK's `notifications/cancelled` and rejects with the signal's
   * reason; a closed connection or protocol failure is an `execution_error` naming the server.
   */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    if (this.#closed) throw this.#failure('is not connected', undefined);
    this.#inFlight += 1;
    try {
      const result = await this.#client.callTool({ name, arguments: args }, CallToolResultSchema, {
        signal: AbortSignal.any([options.signal, this.#lost.signal]),
        timeout: options.timeoutMs,
        ...(options.onProgress
          ? {
              onprogress: (progress: { progress: number; total?: number; message?: string }) =>
                options.onProgress?.(progress),
            }
          : {}),
      });
      return result as CallToolResult;
    } catch (error) {
      if (options.signal.aborted) throw options.signal.reason;
      if (this.#lost.signal.aborted) throw this.#lost.signal.reason;
      if (isCutSocket(error)) {
        this.#lose(error);
        throw this.#lost.signal.reason;
      }
      if (isSessionExpired(error)) {
        await this.close();
        throw new McpSessionExpiredError(
          `The MCP server "${this.#options.server}" no longer knows this session (it restarted): ${messageOf(error)}`,
          { cause: error },
        );
      }
      const stopped = this.#closed;
      // A standard JSON-RPC error came from a live server that understood us; anything else (a lost
      // HTTP session, a timeout, a broken stream) means this connection cannot be trusted again.
      if (!(error instanceof McpError && error.code <= -32600 && error.code >= -32603)) await this.close();
      throw this.#failure(stopped ? 'stopped during the call' : 'failed the call', error);
    } finally {
      this.#inFlight -= 1;
    }
  }

  async close(): Promise<void> {
    await this.#client.close().catch(() => {});
    this.#markClosed();
  }

  #lose(error: unknown): void {
    if (this.#lost.signal.aborted) return;
    this.#lost.abort(this.#failure('lost the connection during the call', error));
    void this.close();
  }

  #markClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#options.onClosed?.();
  }

  #failure(what: string, error: unknown): ToolError {
    const said = this.#options.diagnostics?.() ?? '';
    const cause = error === undefined ? '' : `: ${messageOf(error)}`;
    return new ToolError(
      'execution_error',
      `The MCP server "${this.#options.server}" ${what}${cause}${said ? ` (its last output: ${said.slice(-500)})` : ''}`,
    );
  }
}
