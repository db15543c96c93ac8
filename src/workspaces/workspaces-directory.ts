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
import { mkdirSync, realpathSync } from 'node:fs';
import { HeldDirectory } from '../descriptors/held-directory.ts';
import { MangoError } from '../errors/mango-error.ts';
import { isPathInside } from '../tools/access/reachable-set.ts';

/** Thrown when the workspaces directory cannot be used; the server refuses to start with its message. */
export class WorkspacesDirectoryError extends MangoError {
  override name = 'WorkspacesDirectoryError';
  constructor(message: string, options?: ErrorOptions) {
    super('workspaces_directory_unusable', message, options);
  }
}

function overlaps(left: string, right: string): boolean {
  return isPathInside(left, right) || isPathInside(right, left);
}

/**
 * Creates the workspaces directory when missing and returns its real path. Its mode, set through its own
 * descriptor (`fchown`, `fchmod`):
 * - with a sandbox group (each user's commands run as a uid of their own, all in that group): `0710`,
 *   root's and the group's, so sandboxed processes may pass through it to their own workspace but not
 *   list who else has one, and no other host account may enter it at all;
 * - without (commands run as the server's own uid): `0711` when created, as that uid owns everything
 *   below anyway; an existing one keeps the mode its operator gave it.
 * @throws WorkspacesDirectoryError when it overlaps the data or installation directory, or cannot be
 * made so.
 */
export function prepareWorkspacesDirectory(input: {
  workspacesDirectory: string;
  dataDirectory: string;
  installationDirectory: string;
  sandboxGroup?: number;
}): string {
  let created: string | undefined;
  try {
    created = mkdirSync(input.workspacesDirectory, { recursive: true, mode: 0o711 });
  } catch (error) {
    throw new WorkspacesDirectoryError(
      `The workspaces directory ${input.workspacesDirectory} (MANGO_WORKSPACES_DIR) cannot be created: ${(error as Error).message}`,
    );
  }
  const real = realpathSync(input.workspacesDirectory);
  try {
    const directory = HeldDirectory.open(real);
    try {
      if (input.sandboxGroup !== undefined) {
        directory.changeOwner(0, input.sandboxGroup);
        directory.changeMode(0o710);
      } else if (created !== undefined) {
        // The umask may have narrowed the mode of a directory created just now.
        directory.changeMode(0o711);
      }
    } finally {
      directory.close();
    }
  } catch (error) {
    throw new WorkspacesDirectoryError(
      `The workspaces directory ${real} (MANGO_WORKSPACES_DIR) cannot be given its mode: ${(error as Error).message}`,
    );
  }
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
