/**
 * Server configuration from the environment. Every default is the safe one: the API listens on the
 * loopback interface only and keeps its SQLite database under `./data`.
 *
 * | variable         | default     | meaning                                                         |
 * | ---------------- | ----------- | --------------------------------------------------------------- |
 * | `HOST`           | `127.0.0.1` | interface to listen on                                          |
 * | `PORT`           | `3000`      | TCP port (0 = any free port)                                    |
 * | `MANGO_DATA_DIR` | `./data`    | SQLite database (`mango.db`) and generated files                |
 * | `DATABASE_URL`   | (unset)     | `postgres://…` switches to PostgreSQL; unset = SQLite           |
 */
import { resolve } from 'node:path';

export interface ServerConfig {
  host: string;
  port: number;
  /** Absolute path of the data directory. */
  dataDirectory: string;
  /** `postgres://…` / `postgresql://…`; undefined selects SQLite at `<dataDirectory>/mango.db`. */
  databaseUrl: string | undefined;
  /** Longest time graceful shutdown waits for in-flight requests before closing them. */
  shutdownTimeoutMs: number;
  /** Largest request body accepted, in bytes (larger → 413). */
  maxRequestBodyBytes: number;
  /**
   * Seconds a connection may stay silent before `Bun.serve` closes it (default
   * `DEFAULT_IDLE_TIMEOUT_SECONDS`, Bun's own). Long-lived streams (turns, MCP) send keep-alives at half
   * this interval (`keepAliveMillisecondsFor`).
   */
  idleTimeoutSeconds?: number;
  /** The built web app served at `/` (default `dist/web` of this checkout; `npm run build` makes it). */
  webDirectory?: string;
}

/** Bun.serve's default idle timeout, kept as ours. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 10;

/** The keep-alive interval of a long-lived stream under `config`: half its idle timeout. */
export function keepAliveMillisecondsFor(config: Pick<ServerConfig, 'idleTimeoutSeconds'>): number {
  return ((config.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS) * 1000) / 2;
}

/** Thrown for a configuration value that cannot work; the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** Reads the configuration from `env`, resolving relative paths against `cwd`. */
export function loadConfig(env: Record<string, string | undefined>, cwd: string): ServerConfig {
  const host = env.HOST?.trim() || '127.0.0.1';
  const rawPort = env.PORT?.trim() || '3000';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(rawPort)}.`);
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset to use SQLite).');
  }
  return {
    host,
    port,
    dataDirectory: resolve(cwd, env.MANGO_DATA_DIR?.trim() || 'data'),
    databaseUrl,
    shutdownTimeoutMs: 10_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  };
}
