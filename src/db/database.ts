/**
 * The database connection: one `Bun.SQL` client for both backends, SQLite (a file under the data
 * directory, the default) and PostgreSQL (`DATABASE_URL`). Repositories write portable SQL and branch on
 * `dialect` only where the two differ (upserts with locking, booleans). SQL lives only in `src/db/`.
 *
 * SQLite's files are the server's own: the data directory 0700 (data-directory.ts), and `mango.db`,
 * `mango.db-wal` and `mango.db-shm` 0600. SQLite creates the last two later, and removes them when its
 * last connection closes; it gives them the mode (and, as root, the owner) of `mango.db` whatever the
 * umask, so `mango.db` is made 0600 before SQLite first opens it. Once they exist the two are narrowed
 * too, so files an older version left wider are 0600 from this start on.
 */

import { join } from 'node:path';
import { SQL } from 'bun';
import type { HeldDirectory } from '../descriptors/held-directory.ts';
import { makeFilePrivate } from '../descriptors/private-directory.ts';
import { openDataDirectory } from './data-directory.ts';

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

/** The SQLite database's file name in the data directory. */
const SQLITE_FILE_NAME = 'mango.db';

/** The files SQLite keeps next to the database in WAL mode. */
const SQLITE_WAL_FILE_NAMES = [`${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`] as const;

function narrowJournalFiles(directory: HeldDirectory): void {
  for (const name of SQLITE_WAL_FILE_NAMES) makeFilePrivate(directory, name, { create: false });
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
  const filename = join(options.dataDirectory, SQLITE_FILE_NAME);
  const directory = openDataDirectory(options.dataDirectory);
  let sql: SQL;
  try {
    makeFilePrivate(directory, SQLITE_FILE_NAME, { create: true });
    sql = new SQL({ adapter: 'sqlite', filename, create: true, readwrite: true });
    try {
      await sql.unsafe('PRAGMA busy_timeout = 5000');
      await sql.unsafe('PRAGMA journal_mode = WAL');
      // NORMAL is durable against a process crash (kill -9) in WAL mode; only a power loss can drop the
      // last commits, never corrupt the file.
      await sql.unsafe('PRAGMA synchronous = NORMAL');
      await sql.unsafe('PRAGMA foreign_keys = ON');
      // The first read opens the WAL files (SQLite makes them with mango.db's mode); files an older
      // version made keep their own mode until narrowed here.
      await sql.unsafe('SELECT count(*) FROM sqlite_master');
      narrowJournalFiles(directory);
    } catch (error) {
      await sql.close({ timeout: 0 });
      throw error;
    }
  } finally {
    directory.close();
  }
  return {
    sql,
    dialect: 'sqlite',
    location: filename,
    close: (timeout = 5) => sql.close({ timeout }),
  };
}
