/**
 * The protected set: the paths that belong to the server and that no tool call may ever name, whatever
 * the reachable set's roots say — the data directory (database, WAL, images), the installation directory
 * (code, node_modules, the built web app), the kernel's views of processes and devices (`/proc`, `/sys`,
 * `/dev`) and the directory holding every user's personal workspace. Paths are returned real (symlinks
 * resolved) because every decision compares real locations.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** The kernel's views: process memory and environments, devices, kernel tunables. */
export const KERNEL_PROTECTED_PATHS: readonly string[] = ['/proc', '/sys', '/dev'];

/** The real location of `path`, or its absolute lexical form when it does not exist (yet). */
export function realOrAbsolute(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The checkout or package directory the server runs from (three levels above this file). */
export const INSTALLATION_DIRECTORY: string = realOrAbsolute(resolve(import.meta.dir, '..', '..', '..'));

export interface ServerPathsInput {
  /** The server's data directory (`MANGO_DATA_DIR`); undefined when the caller has none. */
  dataDirectory?: string;
  /** The directory holding every user's personal workspace, when the deployment has one. */
  workspacesDirectory?: string;
}

/** The protected set of a deployment, real paths, deduplicated. */
export function computeProtectedPaths(input: ServerPathsInput): string[] {
  const paths = [
    ...KERNEL_PROTECTED_PATHS,
    INSTALLATION_DIRECTORY,
    ...(input.dataDirectory === undefined ? [] : [realOrAbsolute(input.dataDirectory)]),
    ...(input.workspacesDirectory === undefined ? [] : [realOrAbsolute(input.workspacesDirectory)]),
  ];
  return [...new Set(paths)];
}
