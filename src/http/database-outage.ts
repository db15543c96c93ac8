/**
 * What the HTTP layer does while the database cannot be reached (PostgreSQL restarted or down, SQLite
 * locked past its busy timeout or its file unreadable):
 *
 * - such a failure is recognized by its driver code (`isDatabaseUnavailableError`) and answered 503
 *   `database_unavailable` with `Retry-After` (`http-errors.ts`), never a 500 with a stack;
 * - one line is logged when an outage begins and one when it ends ("reachable again after N s"),
 *   whatever the number of requests in between: an outage is one event, not thousands of faults;
 * - while an outage lasts, a probe (`SELECT 1`, one at a time, every `probeIntervalMilliseconds`)
 *   notices the recovery on its own, so the end is logged even if no request comes;
 * - `check()` is the readiness answer of `GET /api/health`: it queries the database with a deadline.
 */
import type { Database } from '../db/database.ts';

/** Seconds a client is told to wait (`Retry-After`) before retrying during an outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

const CONNECTION_ERROR_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
  'ERR_POSTGRES_IDLE_TIMEOUT',
  'ERR_POSTGRES_LIFETIME_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
]);

/** SQLSTATE classes and codes of a server going away: connection exceptions, shutdown, start-up. */
function isUnavailableSqlState(state: string): boolean {
  return state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03';
}

/** True when `error` means "the database cannot be reached right now", not a bad query. */
export function isDatabaseUnavailableError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || code.startsWith('SQLITE_IOERR'))) {
    return true;
  }
  return typeof errno === 'string' && isUnavailableSqlState(errno);
}

export interface DatabaseHealth {
  ok: boolean;
  /** The failure, for the health body and the log, when not ok. */
  reason?: string;
}

export interface DatabaseOutageOptions {
  database: Database;
  log: (message: string) => void;
  now: () => number;
  probeIntervalMilliseconds?: number;
  /** Longest a health query may take before the database counts as unreachable. */
  checkTimeoutMilliseconds?: number;
}

/** The outage state of one app's database. */
export class DatabaseOutage {
  readonly #options: DatabaseOutageOptions;
  #startedAt: number | undefined;
  #probe: ReturnType<typeof setInterval> | undefined;
  #probing = false;

  constructor(options: DatabaseOutageOptions) {
    this.#options = options;
  }

  /** Whether an outage is in progress (begun and not yet seen to end). */
  get active(): boolean {
    return this.#startedAt !== undefined;
  }

  /** A request failed because the database is unreachable: logs only when this begins an outage. */
  reportFailure(error: unknown): void {
    if (this.#startedAt !== undefined) return;
    this.#startedAt = this.#options.now();
    this.#options.log(`[mango] database unreachable, answering 503 until it is back: ${describe(error)}`);
    const interval = this.#options.probeIntervalMilliseconds ?? 1_000;
    this.#probe = setInterval(() => void this.#runProbe(), interval);
    this.#probe.unref?.();
  }

  /** The database answered: ends an outage in progress (and logs its length). */
  reportSuccess(): void {
    if (this.#startedAt === undefined) return;
    const seconds = (this.#options.now() - this.#startedAt) / 1000;
    this.#startedAt = undefined;
    clearInterval(this.#probe);
    this.#probe = undefined;
    this.#options.log(`[mango] database reachable again after ${seconds.toFixed(1)} s`);
  }

  /** Queries the database with a deadline; reports the outcome. */
  async check(): Promise<DatabaseHealth> {
    const timeout = this.#options.checkTimeoutMilliseconds ?? 2_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`no answer within ${timeout} ms`), { code: 'ETIMEDOUT' })),
        timeout,
      );
    });
    try {
      await Promise.race([this.#options.database.sql.unsafe('SELECT 1'), deadline]);
      this.reportSuccess();
      return { ok: true };
    } catch (error) {
      this.reportFailure(error);
      return { ok: false, reason: describe(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops the recovery probe (server shutdown). */
  close(): void {
    clearInterval(this.#probe);
    this.#probe = undefined;
  }

  async #runProbe(): Promise<void> {
    if (this.#probing) return;
    this.#probing = true;
    try {
      await this.check();
    } finally {
      this.#probing = false;
    }
  }
}

function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  return typeof code === 'string' ? `${code}: ${text}` : text;
}
