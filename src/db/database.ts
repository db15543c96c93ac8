/**
 * The database connection: one `Bun.SQL` client for both backends, SQLite (a file under the data
 * directory, the default) and PostgreSQL (`DATABASE_URL`). Repositories write portable SQL and branch on
 * `dialect` only where the two differ (upserts with locking, booleans). SQL lives only in `src/db/`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';

export type SqlDialect = 'sqlite' | 'postgres';

export interface Database {
  readonly sql: SQL;
  readonly dialect: SqlDialect;
  /** Human-readable location for logs (file path, or the PostgreSQL URL without password). */
  readonly location: string;
  /** Closes the connection(s), waiting at most `timeoutSeconds` for running queries. */
  close(timeoutSeconds?: number): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…`; when undefined, SQLite at `<dataDirectory>/mango.db`. */
  databaseUrl: string | undefined;
  dataDirectory: string;
  /** PostgreSQL pool size (default 10). */
  maxConnections?: number;
}

/** Strips the password from a connection URL for logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/**
 * Opens the configured database. SQLite runs in WAL mode with a busy timeout, so the server and a
 * `mango user` command can use the file at the same time, and a killed process never leaves a
 * half-written transaction (SQLite's journal rolls it back on the next open).
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl !== undefined) {
    const sql = new SQL(options.databaseUrl, { max: options.maxConnections ?? 10 });
    await sql.connect();
    return {
      sql,
      dialect: 'postgres',
      location: redactDatabaseUrl(options.databaseUrl),
      close: (timeout = 5) => sql.close({ timeout }),
    };
  }
  mkdirSync(options.dataDirectory, { recursive: true });
  const filename = join(options.dataDirectory, 'mango.db');
  const sql = new SQL({ adapter: 'sqlite', filename, create: true, readwrite: true });
  await sql.unsafe('PRAGMA busy_timeout = 5000');
  await sql.unsafe('PRAGMA journal_mode = WAL');
  // NORMAL is durable against a process crash (kill -9) in WAL mode; only a power loss can drop the
  // last commits, never corrupt the file.
  await sql.unsafe('PRAGMA synchronous = NORMAL');
  await sql.unsafe('PRAGMA foreign_keys = ON');
  return {
    sql,
    dialect: 'sqlite',
    location: filename,
    close: (timeout = 5) => sql.close({ timeout }),
  };
}
