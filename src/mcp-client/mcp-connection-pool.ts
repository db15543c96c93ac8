/**
 * The live connections to external MCP servers, keyed by whom and what they serve (user, server and,
 * for a program on stdio, the reachable set it was started with), so no two users and no two
 * reachable sets ever share one.
 *
 * - Lazy: a connection opens when first needed; callers asking at once share the one attempt.
 * - Reused while open; a closed one (the program exited) is replaced on the next use.
 * - Backoff: after a failed attempt the key is not tried again for 1 s, doubling per consecutive
 *   failure up to 60 s; callers in that window get the last failure at once, so a broken server costs
 *   a turn nothing.
 * - Idle: a connection with no call running for `idleMs` (5 minutes) is closed (its program stops).
 * - Cap: at most `maxPerUser` live connections per user; opening one more closes that user's least
 *   recently used idle connection, and when none is idle the new one is refused with the reason.
 *
 * The clock (`now`) and the timers are injectable, so the backoff and the idle stop are tested by
 * moving time rather than by waiting for it.
 */
import { ToolError } from '../tools/errors.ts';
import { REAL_TOOL_TIMERS, type ToolTimers } from '../tools/execution.ts';
import type { McpConnection } from './mcp-connection.ts';

export const DEFAULT_IDLE_MS = 5 * 60_000;
export const DEFAULT_MAX_CONNECTIONS_PER_USER = 8;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

interface Entry {
  userId: string;
  connection: McpConnection | undefined;
  opening: Promise<McpConnection> | undefined;
  lastUsed: number;
  failures: number;
  retryAt: number;
  lastError: unknown;
  idleTimer: unknown;
}

export interface McpConnectionPoolOptions {
  idleMs?: number;
  maxPerUser?: number;
  now?: () => number;
  /** The idle stop's timers; the runtime's own unless a test injects its own. */
  timers?: ToolTimers;
}

export class McpConnectionPool {
  readonly #entries = new Map<string, Entry>();
  readonly #idleMs: number;
  readonly #maxPerUser: number;
  readonly #now: () => number;
  readonly #timers: ToolTimers;

  constructor(options: McpConnectionPoolOptions = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#maxPerUser = options.maxPerUser ?? DEFAULT_MAX_CONNECTIONS_PER_USER;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? REAL_TOOL_TIMERS;
  }

  /** The open connection of `key`, or undefined (never opens one). */
  peek(key: string): McpConnection | undefined {
    const connection = this.#entries.get(key)?.connection;
    return connection && !connection.closed ? connection : undefined;
  }

  /**
   * The connection of `key`, opened with `open` when there is none.
   * @throws the last failure while the key is backing off, or ToolError when the user's cap is full.
   */
  async acquire(key: string, userId: string, open: () => Promise<McpConnection>): Promise<McpConnection> {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = {
        userId,
        connection: undefined,
        opening: undefined,
        lastUsed: this.#now(),
        failures: 0,
        retryAt: 0,
        lastError: undefined,
        idleTimer: undefined,
      };
      this.#entries.set(key, entry);
    }
    entry.lastUsed = this.#now();
    if (entry.connection && !entry.connection.closed) {
      this.#armIdle(key, entry);
      return entry.connection;
    }
    entry.connection = undefined;
    if (entry.opening) return entry.opening;
    if (entry.failures > 0 && this.#now() < entry.retryAt) throw entry.lastError;
    const current = entry;
    // Set before anything is awaited, so callers arriving meanwhile share this attempt.
    current.opening = this.#makeRoom(userId, key)
      .then(open)
      .then(
        (connection) => {
          current.opening = undefined;
          current.connection = connection;
          current.failures = 0;
          current.lastError = undefined;
          this.#armIdle(key, current);
          return connection;
        },
        (error: unknown) => {
          current.opening = undefined;
          current.failures += 1;
          current.lastError = error;
          current.retryAt =
            this.#now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (current.failures - 1));
          throw error;
        },
      );
    return current.opening;
  }

  /** Marks `key` used now (a call finished), restarting its idle clock. */
  touch(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.lastUsed = this.#now();
    this.#armIdle(key, entry);
  }

  /** Live connections of one user. */
  liveCount(userId: string): number {
    let count = 0;
    for (const entry of this.#entries.values()) {
      if (entry.userId === userId && (entry.opening || (entry.connection && !entry.connection.closed)))
        count += 1;
    }
    return count;
  }

  /** Closes the connections whose key `matches` (all when omitted) and forgets them. */
  async close(matches: (key: string) => boolean = () => true): Promise<void> {
    const closing: Promise<void>[] = [];
    for (const [key, entry] of this.#entries) {
      if (!matches(key)) continue;
      this.#disarmIdle(entry);
      this.#entries.delete(key);
      if (entry.connection) closing.push(entry.connection.close());
      if (entry.opening) closing.push(entry.opening.then((connection) => connection.close()).catch(() => {}));
    }
    await Promise.all(closing);
  }

  #disarmIdle(entry: Entry): void {
    if (entry.idleTimer === undefined) return;
    this.#timers.clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  }

  #armIdle(key: string, entry: Entry): void {
    this.#disarmIdle(entry);
    const timer = this.#timers.setTimeout(() => {
      entry.idleTimer = undefined;
      const connection = entry.connection;
      if (!connection || connection.closed) return;
      // A call still running keeps the connection; its end touches it again.
      if (connection.inFlight > 0) return this.#armIdle(key, entry);
      entry.connection = undefined;
      void connection.close();
    }, this.#idleMs);
    // An idle program must not keep the process alive on its own.
    (timer as { unref?: () => void } | undefined)?.unref?.();
    entry.idleTimer = timer;
  }

  async #makeRoom(userId: string, forKey: string): Promise<void> {
    if (this.liveCount(userId) < this.#maxPerUser) return;
    let oldest: [string, Entry] | undefined;
    for (const pair of this.#entries) {
      const [key, entry] = pair;
      const connection = entry.connection;
      if (key === forKey || entry.userId !== userId || !connection || connection.closed) continue;
      if (connection.inFlight > 0) continue;
      if (!oldest || entry.lastUsed < oldest[1].lastUsed) oldest = pair;
    }
    if (!oldest) {
      throw new ToolError(
        'execution_error',
        `This user already has ${this.#maxPerUser} external MCP server connections busy; try again when a call has finished.`,
      );
    }
    const [, entry] = oldest;
    const connection = entry.connection;
    entry.connection = undefined;
    this.#disarmIdle(entry);
    await connection?.close();
  }
}
