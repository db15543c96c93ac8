/**
 * The real HTTP app over a throwaway SQLite database in a directory of the caller's, with no external
 * MCP servers and an empty environment: for tools that need the server's own routes without starting a
 * server (the OpenAPI lint builds its document from them, benchmarks send requests in process). The
 * caller closes the database and removes the directory.
 */
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, type ServerConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { type App, createApp } from '../http/app.ts';
import { type AppDependencies, createAppDependencies } from '../http/app-dependencies.ts';

export interface ScratchApp {
  app: App;
  deps: AppDependencies;
  database: Database;
  config: ServerConfig;
}

export async function openScratchApp(directory: string): Promise<ScratchApp> {
  const config: ServerConfig = {
    host: '127.0.0.1',
    port: 0,
    dataDirectory: join(directory, 'data'),
    databaseUrl: undefined,
    shutdownTimeoutMs: 1_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    workspacesDirectory: join(directory, 'workspaces'),
  };
  const database = await openDatabase(config);
  await migrate(database);
  const deps = createAppDependencies({
    config,
    database,
    environment: {},
    externalTools: null,
    log: () => {},
  });
  return { app: createApp(deps), deps, database, config };
}
