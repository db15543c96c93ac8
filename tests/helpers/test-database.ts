/**
 * Real databases for tests: a SQLite file in a fresh temp dir, or a uniquely named PostgreSQL database
 * (`mango_t_<random>`) on the run's test server (`test-postgres-server.ts`: `MANGO_TEST_POSTGRES_URL`, or
 * a cluster of the run's own), dropped again by `dispose()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, type ServerConfig } from '../../src/config.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { testPostgresUrl } from './test-postgres-server.ts';

export type Backend = 'sqlite' | 'postgres';
export const BACKENDS: readonly Backend[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  backend: Backend;
  config: ServerConfig;
  /** An open, migrated connection. */
  database: Database;
  /** Opens another connection to the same database (closing is the caller's job). */
  open(): Promise<Database>;
  /** Closes `database` and opens it again (restart). */
  reopen(): Promise<Database>;
  /** Closes every connection this helper opened, removes the temp dir and drops the PG database. */
  dispose(): Promise<void>;
}

function withDatabaseName(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A fresh empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mango_t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const adminUrl = await testPostgresUrl();
  const admin = new SQL(adminUrl, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.close();
  return {
    url: withDatabaseName(adminUrl, name),
    drop: async () => {
      const dropper = new SQL(adminUrl, { max: 1 });
      await dropper.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await dropper.close();
    },
  };
}

export async function createTestDatabase(
  backend: Backend,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const directory = await mkdtemp(join(tmpdir(), 'mango-db-'));
  // Outside the data directory, as the server requires.
  const workspacesDirectory = await mkdtemp(join(tmpdir(), 'mango-workspaces-'));
  const postgres = backend === 'postgres' ? await createPostgresDatabase() : undefined;
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDirectory: directory,
    databaseUrl: postgres?.url,
    shutdownTimeoutMs: 5_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    workspacesDirectory,
  };
  const opened = new Set<Database>();
  const open = async () => {
    const database = await openDatabase({ ...config, maxConnections: 4 });
    opened.add(database);
    return database;
  };
  const result: TestDatabase = {
    backend,
    config,
    database: await open(),
    open,
    reopen: async () => {
      await result.database.close();
      opened.delete(result.database);
      result.database = await open();
      return result.database;
    },
    dispose: async () => {
      for (const database of opened) await database.close(0).catch(() => {});
      await postgres?.drop();
      await rm(directory, { recursive: true, force: true });
      await rm(workspacesDirectory, { recursive: true, force: true });
    },
  };
  if (options.migrate !== false) await migrate(result.database);
  return result;
}
