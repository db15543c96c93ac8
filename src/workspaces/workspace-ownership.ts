/**
 * The one place where a newly created personal workspace gets its owner. When shell commands run as
 * another uid than the server (a server running as root drops sandboxed commands to an unprivileged
 * uid), that uid must be able to use the workspace, so the configuration names the owner; without one
 * the directory keeps the server's uid. The owner is given through the directory's held descriptor
 * (`fchown`), never by name. A chown that fails stops the creation: a workspace the user's commands
 * cannot use must not look ready.
 */
import type { HeldDirectory } from '../descriptors/held-directory.ts';

export interface WorkspaceOwner {
  uid: number;
  gid: number;
}

/** Gives the held `directory` to `owner` (no-op when undefined). */
export function applyWorkspaceOwnership(directory: HeldDirectory, owner: WorkspaceOwner | undefined): void {
  if (owner === undefined) return;
  directory.changeOwner(owner.uid, owner.gid);
}
