/**
 * Workspaces that still belong to the one uid of earlier versions (`MANGO_SANDBOX_UID`). Before each
 * user had a uid, every workspace was that uid's; a user's commands now run as their own uid and could
 * not change those files, and the old uid's files would stay writable by anything still running as it.
 * A call that reaches such a root is refused, naming the command that gives each workspace to its
 * user (`mango workspace migrate-owners`), rather than run half-working, and a root server counts such
 * workspaces at start and says so.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Environment, readVariable } from '../config/environment-variables.ts';

/** The message for a call reaching `root`, still owned by `legacyUid`. */
export function unmigratedMessage(root: string, legacyUid: number): string {
  return `The workspace ${root} still belongs to uid ${legacyUid} (MANGO_SANDBOX_UID), the one uid every user's commands ran as before each user had their own: commands cannot run there until an operator runs \`mango workspace migrate-owners\`.`;
}

/** The first of `roots` (real paths) whose directory belongs to `legacyUid`, or undefined. */
export function firstUnmigratedRoot(roots: readonly string[], legacyUid: number): string | undefined {
  for (const root of roots) {
    try {
      if (lstatSync(root).uid === legacyUid) return root;
    } catch {
      // A root that cannot be looked at fails where the sandbox opens it, with its own reason.
    }
  }
  return undefined;
}

/**
 * How many roots still belong to `legacyUid`: the directories directly in `workspacesDirectory` (one
 * per user) and the distinct `grants` (real paths). Only each root's own owner is read, by `lstat`, so
 * this is cheap enough for every start; a root that cannot be read is not counted.
 */
export function countUnmigratedWorkspaces(
  workspacesDirectory: string,
  grants: readonly string[],
  legacyUid: number,
): number {
  let names: string[];
  try {
    names = readdirSync(workspacesDirectory);
  } catch {
    names = []; // none yet: the server creates the directory at start
  }
  const roots = [...names.map((name) => join(workspacesDirectory, name)), ...new Set(grants)];
  return roots.filter((root) => {
    try {
      const stats = lstatSync(root);
      return stats.isDirectory() && stats.uid === legacyUid;
    } catch {
      return false;
    }
  }).length;
}

/**
 * The start-up line of a root server whose workspaces still belong to the legacy uid, or undefined
 * when none does, when the server is not root (its commands run as its own uid, nothing is refused) or
 * when the sandbox is off or misconfigured (its own start-up line says so).
 */
export function unmigratedWorkspacesNotice(
  environment: Environment,
  workspacesDirectory: string,
  grants: readonly string[],
  serverIsRoot: boolean = process.getuid?.() === 0,
): string | undefined {
  if (!serverIsRoot) return undefined;
  let legacyUid: number;
  try {
    if (readVariable(environment, 'MANGO_SHELL_SANDBOX') === 'off') return undefined;
    legacyUid = readVariable(environment, 'MANGO_SANDBOX_UID');
  } catch {
    return undefined;
  }
  const count = countUnmigratedWorkspaces(workspacesDirectory, grants, legacyUid);
  if (count === 0) return undefined;
  const what = count === 1 ? '1 workspace still belongs' : `${count} workspaces still belong`;
  return `${what} to uid ${legacyUid} (MANGO_SANDBOX_UID) from before per-user uids: shell commands there are refused until you run \`mango workspace migrate-owners\`.`;
}
