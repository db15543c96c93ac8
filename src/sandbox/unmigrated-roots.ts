/**
 * Workspaces that still belong to the one uid of earlier versions (`MANGO_SANDBOX_UID`). Before each
 * user had a uid, every workspace was that uid's; a user's commands now run as their own uid and could
 * not change those files, and the old uid's files would stay writable by anything still running as it.
 * A call that reaches such a root is refused, naming the command that gives each workspace to its
 * user (`mango workspace migrate-owners`), rather than run half-working.
 */
import { lstatSync } from 'node:fs';

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
