/**
 * Server configuration from the environment. Every default is the safe one: the API listens on the
 * loopback interface only and keeps its SQLite database under `./data`.
 *
 * Every variable, its default and its parser are declared in `config/environment-variables.ts`; this
 * file turns them into the `ServerConfig` a server instance is given.
 *
 * `MANGO_WORKSPACE_ROOTS` (shared roots every user could bind) is gone: a configuration that still sets
 * it is refused, so an operator never believes a setting applies that no longer does.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError } from './config/config-error.ts';
import { defaultOf, type Environment, readVariable } from './config/environment-variables.ts';

export { ConfigError };

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
   * Each user's disk quota unless they have their own (`MANGO_USER_DISK_BYTES`): a new personal
   * workspace is an ext4 image of this size. Absent: new workspaces get no image (existing images are
   * still mounted with their users' quotas).
   */
  userDiskBytes?: number;
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
  env: Environment,
  uid: number | undefined = process.getuid?.(),
): string {
  if (uid === 0) return ROOT_DEFAULT_WORKSPACES_DIRECTORY;
  const dataHome =
    readVariable(env, 'XDG_DATA_HOME') ?? join(readVariable(env, 'HOME') ?? homedir(), '.local', 'share');
  return join(dataHome, 'mango', 'workspaces');
}

export const DEFAULT_MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** Large enough for documents and data files, small enough to hold in memory while it is written. */
export const DEFAULT_MAX_UPLOAD_BYTES = defaultOf('MANGO_MAX_UPLOAD_BYTES');

/** The upload cap of `config`. */
export function maxUploadBytesOf(config: Pick<ServerConfig, 'maxUploadBytes'>): number {
  return config.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
}

/** The refusal for a configuration that still sets the removed `MANGO_WORKSPACE_ROOTS`, or undefined. */
export function removedWorkspaceRootsMessage(env: Environment): string | undefined {
  try {
    readVariable(env, 'MANGO_WORKSPACE_ROOTS');
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** The absolute data directory `MANGO_DATA_DIR` names, relative paths resolved against `cwd`. */
export function dataDirectoryOf(env: Environment, cwd: string): string {
  return resolve(cwd, readVariable(env, 'MANGO_DATA_DIR'));
}

/** Reads the configuration from `env`, resolving relative paths against `cwd`. */
export function loadConfig(env: Environment, cwd: string): ServerConfig {
  readVariable(env, 'MANGO_WORKSPACE_ROOTS');
  const userDiskBytes = readVariable(env, 'MANGO_USER_DISK_BYTES');
  return {
    host: readVariable(env, 'HOST'),
    port: readVariable(env, 'PORT'),
    dataDirectory: dataDirectoryOf(env, cwd),
    databaseUrl: readVariable(env, 'DATABASE_URL'),
    workspacesDirectory: resolve(
      cwd,
      readVariable(env, 'MANGO_WORKSPACES_DIR') ?? defaultWorkspacesDirectory(env),
    ),
    shutdownTimeoutMs: 10_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    maxUploadBytes: readVariable(env, 'MANGO_MAX_UPLOAD_BYTES'),
    ...(userDiskBytes === undefined ? {} : { userDiskBytes }),
  };
}
