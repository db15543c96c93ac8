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
 * | `MANGO_WORKSPACES_DIR` | see `defaultWorkspacesDirectory` | every user's personal workspace   |
 * | `MANGO_MAX_UPLOAD_BYTES` | `26214400` (25 MiB) | largest file uploaded into a workspace (larger → 413) |
 *
 * `MANGO_WORKSPACE_ROOTS` (shared roots every user could bind) is gone: a configuration that still sets
 * it is refused, so an operator never believes a setting applies that no longer does.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

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
   * Largest file uploaded into a workspace through the files routes, in bytes (larger → 413); absent =
   * `DEFAULT_MAX_UPLOAD_BYTES`. Only the upload route accepts a body above `maxRequestBodyBytes`.
   */
  maxUploadBytes?: number;
  /**
   * Seconds a connection may stay silent before `Bun.serve` closes it (default
   * `DEFAULT_IDLE_TIMEOUT_SECONDS`, Bun's own). Long-lived streams (turns, MCP) send keep-alives at half
   * this interval (`keepAliveMillisecondsFor`).
   */
  idleTimeoutSeconds?: number;
  /** The built web app served at `/` (default `dist/web` of this checkout; `npm run build` makes it). */
  webDirectory?: string;
  /** Absolute path of the directory holding every user's personal workspace (`MANGO_WORKSPACES_DIR`). */
  workspacesDirectory: string;
  /**
   * Who owns a newly created personal workspace. Set when shell commands run as another uid than the
   * server (a server running as root drops its sandboxed commands to an unprivileged uid), so that uid
   * can use the workspace; absent = the server's own uid, nothing changed.
   */
  workspaceOwner?: { uid: number; gid: number };
}

/** Bun.serve's default idle timeout, kept as ours. */
export const DEFAULT_IDLE_TIMEOUT_SECONDS = 10;

/** The keep-alive interval of a long-lived stream under `config`: half its idle timeout. */
export function keepAliveMillisecondsFor(config: Pick<ServerConfig, 'idleTimeoutSeconds'>): number {
  return ((config.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS) * 1000) / 2;
}

/** Where personal workspaces go by default when the server runs as root. */
export const ROOT_DEFAULT_WORKSPACES_DIRECTORY = '/var/lib/mango/workspaces';

/**
 * The default workspaces directory for an environment: `$XDG_DATA_HOME/mango/workspaces`, except for a
 * server running as root, whose home is closed to the unprivileged uid shell commands then run as (the
 * sandbox must reach a workspace on the host to mount it), so it uses a system directory.
 */
export function defaultWorkspacesDirectory(
  env: Readonly<Record<string, string | undefined>>,
  uid: number | undefined = process.getuid?.(),
): string {
  if (uid === 0) return ROOT_DEFAULT_WORKSPACES_DIRECTORY;
  const dataHome = env.XDG_DATA_HOME?.trim() || join(env.HOME?.trim() || homedir(), '.local', 'share');
  return join(dataHome, 'mango', 'workspaces');
}

/** Thrown for a configuration value that cannot work; the CLI prints it and exits 2. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** Large enough for documents and data files, small enough to hold in memory while it is written. */
export const DEFAULT_MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** The upload cap of `config`. */
export function maxUploadBytesOf(config: Pick<ServerConfig, 'maxUploadBytes'>): number {
  return config.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
}

function readMaxUploadBytes(raw: string | undefined): number {
  const text = raw?.trim();
  if (text === undefined || text === '') return DEFAULT_MAX_UPLOAD_BYTES;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || !Number.isSafeInteger(value)) {
    throw new ConfigError(
      `MANGO_MAX_UPLOAD_BYTES must be a positive whole number of bytes, got ${JSON.stringify(raw)}.`,
    );
  }
  return value;
}

/** The refusal for a configuration that still sets the removed `MANGO_WORKSPACE_ROOTS`, or undefined. */
export function removedWorkspaceRootsMessage(
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (env.MANGO_WORKSPACE_ROOTS === undefined) return undefined;
  return (
    'MANGO_WORKSPACE_ROOTS is no longer supported: directories now belong to users. Unset it, then grant ' +
    'each user the directories they need with `mango workspace grant NAME DIR` (or ' +
    '`mango workspace grant-existing` to grant the directories existing chats use); see docs/isolation.md.'
  );
}

/** Reads the configuration from `env`, resolving relative paths against `cwd`. */
export function loadConfig(env: Record<string, string | undefined>, cwd: string): ServerConfig {
  const removed = removedWorkspaceRootsMessage(env);
  if (removed !== undefined) throw new ConfigError(removed);
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
    workspacesDirectory: resolve(cwd, env.MANGO_WORKSPACES_DIR?.trim() || defaultWorkspacesDirectory(env)),
    shutdownTimeoutMs: 10_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    maxUploadBytes: readMaxUploadBytes(env.MANGO_MAX_UPLOAD_BYTES),
  };
}
