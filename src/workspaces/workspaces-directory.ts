/**
 * Where personal workspaces live (`MANGO_WORKSPACES_DIR`) and the start-up check on it.
 *
 * The default (config.ts) is `$XDG_DATA_HOME/mango/workspaces` (`~/.local/share/mango/workspaces`): outside the
 * installation directory and outside the default data directory (`./data` of the checkout), so neither
 * a user's files nor the server's can be reached through the other. A configuration where the
 * workspaces directory contains or lies inside the data directory or the installation directory is
 * refused at start: a protected directory holding a user's files (or the reverse) would make one of the
 * two rules impossible to keep.
 */
import { chmodSync, mkdirSync, realpathSync } from 'node:fs';
import { isPathInside } from '../tools/access/reachable-set.ts';

/** Thrown when the workspaces directory cannot be used; the server refuses to start with its message. */
export class WorkspacesDirectoryError extends Error {
  override name = 'WorkspacesDirectoryError';
}

function overlaps(left: string, right: string): boolean {
  return isPathInside(left, right) || isPathInside(right, left);
}

/**
 * Creates the workspaces directory when missing (mode 0711: users' processes may pass through it to
 * their own workspace, but not list who else has one) and returns its real path.
 * @throws WorkspacesDirectoryError when it overlaps the data or installation directory.
 */
export function prepareWorkspacesDirectory(input: {
  workspacesDirectory: string;
  dataDirectory: string;
  installationDirectory: string;
}): string {
  let created: string | undefined;
  try {
    created = mkdirSync(input.workspacesDirectory, { recursive: true, mode: 0o711 });
  } catch (error) {
    throw new WorkspacesDirectoryError(
      `The workspaces directory ${input.workspacesDirectory} (MANGO_WORKSPACES_DIR) cannot be created: ${(error as Error).message}`,
    );
  }
  // The umask may have narrowed the mode of a directory created just now.
  if (created !== undefined) chmodSync(input.workspacesDirectory, 0o711);
  const real = realpathSync(input.workspacesDirectory);
  mkdirSync(input.dataDirectory, { recursive: true });
  const data = realpathSync(input.dataDirectory);
  for (const [name, other] of [
    ['data directory (MANGO_DATA_DIR)', data],
    ['installation directory', input.installationDirectory],
  ] as const) {
    if (overlaps(real, other)) {
      throw new WorkspacesDirectoryError(
        `The workspaces directory ${real} (MANGO_WORKSPACES_DIR) overlaps the ${name} ${other}: users' ` +
          'files and the server’s must not contain one another. Set MANGO_WORKSPACES_DIR to a directory ' +
          'outside both.',
      );
    }
  }
  return real;
}
