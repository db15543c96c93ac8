/**
 * Opens (and migrates) the configured database for a CLI command — the same configuration as the
 * server (`MANGO_DATA_DIR`, `DATABASE_URL`, see `src/config.ts`) — so `mango user …` and `mango mcp`
 * work before the server has ever run and alongside a running server. Like the server's start, it
 * first makes the data directory the server's own (mode 0700), with either database: a command may be
 * the first to create it, and what it writes there (images, the SQLite files) is as private.
 */
import { ConfigError, loadConfig, type ServerConfig } from '../config.ts';
import { prepareDataDirectory } from '../db/data-directory.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { type CliIo, UsageError } from './usage-error.ts';

/** The configuration and an open, migrated connection; the caller closes `database`. */
export async function openCliDatabase(
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ config: ServerConfig; database: Database }> {
  let config: ServerConfig;
  try {
    config = loadConfig(env, cwd);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  prepareDataDirectory(config.dataDirectory);
  const database = await openDatabase({ ...config, maxConnections: 2 });
  try {
    await migrate(database);
  } catch (error) {
    await database.close(0);
    throw error;
  }
  return { config, database };
}

/** Runs `use` with an open, migrated connection and closes it afterwards. */
export async function withCliDatabase<T>(
  io: Pick<CliIo, 'env' | 'cwd'>,
  use: (database: Database) => Promise<T>,
): Promise<T> {
  const { database } = await openCliDatabase(io.env, io.cwd);
  try {
    return await use(database);
  } finally {
    await database.close();
  }
}
