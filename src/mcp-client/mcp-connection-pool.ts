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
 *   recently used idle connection. When none is idle (every one is opening, listing or in a call), the
 *   new one waits up to `roomWaitMs` for one to become idle — so a user with more servers than the cap
 *   still gets all of them listed — and is then refused with the reason.
 *
 * The clock (`now`) and the timers are injectable, so the backoff and the idle stop are tested by
 * moving time rather than by waiting for it.
 */
import { ToolError } from '../tools/errors.ts';
import { REAL_TOOL_TIMERS, type ToolTimers } from '../tools/execution.ts';
import type { McpConnection } from './mcp-connection.ts';

export const DEFAULT_IDLE_MS = 5 * 60_000;
export const DEFAULT_MAX_CONNECTIONS_PER_USER = 8;
/** How long a connection waits for room under the cap: as long as a server has for its handshake. */
export const DEFAULT_ROOM_WAIT_MS = 15_000;
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
  /** Callers between `acquire` and their `touch`: such a connection is in use, never closed for room. */
  users: number;
}

export interface McpConnectionPoolOptions {
  idleMs?: number;
  maxPerUser?: number;
  roomWaitMs?: number;
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
  readonly #roomWaitMs: number;
  /** Woken whenever a connection may have become idle or gone (room under a user's cap). */
  readonly #roomWaiters = new Set<() => void>();

  constructor(options: McpConnectionPoolOptions = {}) {
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.#maxPerUser = options.maxPerUser ?? DEFAULT_MAX_CONNECTIONS_PER_USER;
    this.#now = options.now ?? Date.now;
    this.#timers = options.timers ?? REAL_TOOL_TIMERS;
    this.#roomWaitMs = options.roomWaitMs ?? DEFAULT_ROOM_WAIT_MS;
  }

  /** The open connection of `key`, or undefined (never opens one). */
  peek(key: string): McpConnection | undefined {
    const connection = this.#entries.get(key)?.connection;
    return connection && !connection.closed ? connection : undefined;
  }

  /**
   * The connection of `key`, opened with `open` when there is none. Every successful acquire is one
   * use, ended by `touch(key)`; until then the connection is not closed to make room for another.
   * @throws the last failure while the key is backing off, or ToolError when the user's cap is full.
   */
  async acquire(key: string, userId: string, open: () => Promise<McpConnection>): Promise<McpConnection> {
    // Counted before anything is awaited, so no one closes the connection between its opening and use.
    const entry = this.#entryOf(key, userId);
    entry.users += 1;
    try {
      return await this.#connect(entry, key, userId, open);
    } catch (error) {
      entry.users -= 1;
      throw error;
    }
  }

  #entryOf(key: string, userId: string): Entry {
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
        users: 0,
      };
      this.#entries.set(key, entry);
    }
    return entry;
  }

  #connect(
    entry: Entry,
    key: string,
    userId: string,
    open: () => Promise<McpConnection>,
  ): Promise<McpConnection> {
    entry.lastUsed = this.#now();
    if (entry.connection && !entry.connection.closed) {
      this.#armIdle(key, entry);
      return Promise.resolve(entry.connection);
    }
    entry.connection = undefined;
    if (entry.opening) return entry.opening;
    if (entry.failures > 0 && this.#now() < entry.retryAt) return Promise.reject(entry.lastError);
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
          this.#wakeRoomWaiters();
          return connection;
        },
        (error: unknown) => {
          current.opening = undefined;
          current.failures += 1;
          current.lastError = error;
          current.retryAt =
            this.#now() + Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (current.failures - 1));
          this.#wakeRoomWaiters();
          throw error;
        },
      );
    return current.opening;
  }

  /** Ends one use of `key` begun by `acquire` (a call or listing finished), restarting its idle clock. */
  touch(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    entry.users = Math.max(0, entry.users - 1);
    entry.lastUsed = this.#now();
    this.#armIdle(key, entry);
    this.#wakeRoomWaiters();
  }

  /** Live connections of one user (opening ones included). */
  liveCount(userId: string): number {
    return this.#liveCountBesides(userId, undefined);
  }

  #liveCountBesides(userId: string, besides: string | undefined): number {
    let count = 0;
    for (const [key, entry] of this.#entries) {
      if (key === besides || entry.userId !== userId) continue;
      if (entry.opening || (entry.connection && !entry.connection.closed)) count += 1;
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
    this.#wakeRoomWaiters();
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
      // A use still running keeps the connection; its end touches it again.
      if (connection.inFlight > 0 || entry.users > 0) return this.#armIdle(key, entry);
      entry.connection = undefined;
      void connection.close().then(() => this.#wakeRoomWaiters());
    }, this.#idleMs);
    // An idle program must not keep the process alive on its own.
    (timer as { unref?: () => void } | undefined)?.unref?.();
    entry.idleTimer = timer;
  }

  #wakeRoomWaiters(): void {
    const waiters = [...this.#roomWaiters];
    this.#roomWaiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves at the next wake or after `milliseconds`, whichever is first. */
  #waitForRoom(milliseconds: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: unknown;
      const done = () => {
        this.#timers.clearTimeout(timer);
        this.#roomWaiters.delete(done);
        resolve();
      };
      this.#roomWaiters.add(done);
      timer = this.#timers.setTimeout(done, milliseconds);
    });
  }

  #leastRecentlyUsedIdle(userId: string, forKey: string): Entry | undefined {
    let oldest: Entry | undefined;
    for (const [key, entry] of this.#entries) {
      const connection = entry.connection;
      if (key === forKey || entry.userId !== userId || !connection || connection.closed) continue;
      if (connection.inFlight > 0 || entry.users > 0) continue;
      if (!oldest || entry.lastUsed < oldest.lastUsed) oldest = entry;
    }
    return oldest;
  }

  async #makeRoom(userId: string, forKey: string): Promise<void> {
    const deadline = this.#now() + this.#roomWaitMs;
    for (;;) {
      // The key's own attempt is not counted: it is what needs the room.
      if (this.#liveCountBesides(userId, forKey) < this.#maxPerUser) return;
      const oldest = this.#leastRecentlyUsedIdle(userId, forKey);
      if (oldest) {
        const connection = oldest.connection;
        oldest.connection = undefined;
        this.#disarmIdle(oldest);
        await connection?.close();
        return;
      }
      const left = deadline - this.#now();
      if (left <= 0) {
        throw new ToolError(
          'execution_error',
          `This user already has ${this.#maxPerUser} external MCP server connections busy; try again when a call has finished.`,
        );
      }
      await this.#waitForRoom(left);
    }
  }
}
