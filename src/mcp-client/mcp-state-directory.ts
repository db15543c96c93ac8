/**
 * The per-user state directories of stdio MCP servers: `<workspaces directory>/.mcp-state/<user>/<server>`,
 * mounted read-write into that user's sandbox of that server.
 *
 * - Where: bubblewrap opens each mount source by name as the sandbox uid, so every directory above one
 *   must be passable for that uid. The workspaces directory is the one tree that is; the data directory
 *   is the server's alone (0700). `.mcp-state` is never a personal workspace: user ids have no dot.
 * - `.mcp-state` and `<user>` are the server's, mode 0711 (passable, not listable), made and opened
 *   through held directories with links refused; `<server>` is 0700 and given to the sandbox uid when
 *   made, and the server never acts inside it.
 * - Older versions kept them at `<data directory>/mcp-state/<user>/<server>`. The first use of a (user,
 *   server) whose new directory is missing moves the old one there (`renameat2` with `RENAME_NOREPLACE`
 *   between held directories, so a directory made meanwhile is never replaced) and removes the old
 *   parents once empty. One on another filesystem (`EXDEV`) stays where it is, with a line naming both
 *   places, and the server starts with a new, empty one.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import { errorCodeOf } from '../descriptors/system-call-error.ts';
import { getUserImageDirectoryName } from '../images/image-files.ts';
import { handHeldToSandboxUser } from '../sandbox/sandbox-file-owner.ts';
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';

/** The state directories' directory in the workspaces directory. */
export const MCP_STATE_DIRECTORY_NAME = '.mcp-state';
/** Where older versions kept them in the data directory. */
export const FORMER_MCP_STATE_DIRECTORY_NAME = 'mcp-state';

/** `.mcp-state` and each user's directory: the sandbox uid passes through, lists nothing. */
const PASSABLE_MODE = 0o711;
/** A server's state directory, before it is given to the sandbox uid. */
const STATE_MODE = 0o700;

export interface McpStateLocation {
  /**
   * Where the state directories live: `<workspaces directory>/.mcp-state` ({@link mcpStateDirectoryIn});
   * its parent must exist.
   */
  stateDirectory: string;
  /**
   * Where older versions kept them, `<data directory>/mcp-state` ({@link formerMcpStateDirectoryIn}): a
   * user's state for a server is moved from there at its first use. Absent: nothing to move.
   */
  formerStateDirectory?: string;
  /** Where the line about state left on another filesystem goes (default: stderr). */
  log?: (line: string) => void;
}

/** The state directories' place in the workspaces directory `workspacesDirectory`. */
export function mcpStateDirectoryIn(workspacesDirectory: string): string {
  return join(workspacesDirectory, MCP_STATE_DIRECTORY_NAME);
}

/** Where older versions kept them in the data directory `dataDirectory`. */
export function formerMcpStateDirectoryIn(dataDirectory: string): string {
  return join(dataDirectory, FORMER_MCP_STATE_DIRECTORY_NAME);
}

/** The directory `name` in `parent`, made with mode 0711 when missing; a link there is refused. */
function openPassable(parent: HeldDirectory, name: string): HeldDirectory {
  let created = false;
  try {
    parent.createDirectory(name, PASSABLE_MODE);
    created = true;
  } catch (error) {
    if (errorCodeOf(error) !== 'EEXIST') throw error;
  }
  const directory = parent.openDirectory(name);
  // The umask may have narrowed what was just made; one that exists keeps the mode it was given.
  if (created) directory.changeMode(PASSABLE_MODE);
  return directory;
}

/**
 * The user's state directory for one server (its real path), made (and given to the sandbox uid), or
 * moved from where older versions kept it, when missing.
 */
export async function userStateDirectory(
  location: McpStateLocation,
  userId: string,
  server: string,
  sandbox: ShellSandbox,
): Promise<string> {
  const user = getUserImageDirectoryName(userId);
  const workspaces = await realpath(dirname(location.stateDirectory));
  const base = basename(location.stateDirectory);
  const directory = join(workspaces, base, user, server);
  await withHeldDirectory(HeldDirectory.open(workspaces), (held) =>
    withHeldDirectory(openPassable(held, base), (states) =>
      withHeldDirectory(openPassable(states, user), async (parent) => {
        if (!(parent.statEntryIfPresent(server) !== undefined))
          await moveFormerState(location, user, server, parent, directory);
        try {
          parent.createDirectory(server, STATE_MODE);
        } catch (error) {
          if (errorCodeOf(error) !== 'EEXIST') throw error;
          return;
        }
        // The state directory itself is its user's uid's to change.
        await withHeldDirectory(parent.openDirectory(server), async (created) => {
          created.changeMode(STATE_MODE);
          await handHeldToSandboxUser(created, userId, sandbox);
        });
      }),
    ),
  );
  return directory;
}

/** Moves `<former>/<user>/<server>` into `target` when it is there (see the module header). */
async function moveFormerState(
  location: McpStateLocation,
  user: string,
  server: string,
  target: HeldDirectory,
  shownTarget: string,
): Promise<void> {
  if (location.formerStateDirectory === undefined) return;
  let former: string;
  try {
    former = await realpath(location.formerStateDirectory);
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return;
    throw error;
  }
  const formerName = basename(former);
  // Each may be gone by now: another connection moved the last state out and removed it.
  const data = openIfPresent(() => HeldDirectory.open(dirname(former)));
  if (data === undefined) return;
  await withHeldDirectory(data, async () => {
    const states = openIfPresent(() => data.openDirectory(formerName));
    if (states === undefined) return;
    await withHeldDirectory(states, async () => {
      const parent = openIfPresent(() => states.openDirectory(user));
      if (parent === undefined) return;
      const moved = await withHeldDirectory(parent, (from) => {
        try {
          from.rename(server, target, server, { noReplace: true });
          return true;
        } catch (error) {
          // ENOENT: nothing to move; EEXIST: another connection moved or made it meanwhile.
          if (errorCodeOf(error) === 'ENOENT' || errorCodeOf(error) === 'EEXIST') return false;
          if (errorCodeOf(error) !== 'EXDEV') throw error;
          const log = location.log ?? ((line: string) => console.error(line));
          log(
            `The state of the MCP server "${server}" for ${user} stays at ${join(former, user, server)}: it lies on another filesystem than ${shownTarget}, where the server keeps it now and starts with an empty one; move its contents there to keep them.`,
          );
          return false;
        }
      });
      if (!moved) return;
      // Nothing else is kept at the old place: its directories go once they are empty.
      removeIfEmpty(states, user);
      removeIfEmpty(data, formerName);
    });
  });
}

/** The directory `open` opens, or undefined when it does not exist. */
function openIfPresent(open: () => HeldDirectory): HeldDirectory | undefined {
  try {
    return open();
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Removes the directory `name` of `parent` if it is empty; one that still holds something stays. */
function removeIfEmpty(parent: HeldDirectory, name: string): void {
  try {
    parent.removeDirectory(name);
  } catch (error) {
    const code = errorCodeOf(error);
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw error;
  }
}
