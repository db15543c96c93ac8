/**
 * The one place where a newly created personal workspace gets its owner. When shell commands run as
 * another uid than the server (a server running as root drops sandboxed commands to an unprivileged
 * uid), that uid must be able to use the workspace, so the configuration names the owner; without one
 * the directory keeps the server's uid. A chown that fails stops the creation: a workspace the user's
 * commands cannot use must not look ready.
 */
import { chown } from 'node:fs/promises';

export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

/** Gives `directory` to `owner` (no-op when undefined). */
export async function applyWorkspaceOwnership(
  directory: string,
  owner: WorkspaceOwner | undefined,
): Promise<void> {
  if (owner === undefined) return;
  await chown(directory, owner.uid, owner.gid);
}
