/**
 * Opens (and migrates) the configured database for a CLI command, and closes it afterwards, so
 * `mango user …` works before the server has ever run and alongside a running server.
 */
import { ConfigError, loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { type CliIo, UsageError } from './usage-error.ts';

export async function withCliDatabase<T>(io: CliIo, use: (database: Database) => Promise<T>): Promise<T> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  const database = await openDatabase({ ...config, maxConnections: 2 });
  try {
    await migrate(database);
    return await use(database);
  } finally {
    await database.close();
  }
}
