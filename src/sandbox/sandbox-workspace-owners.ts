/**
 * What the workspace service needs from the shell sandbox of this process: who a user's new personal
 * workspace belongs to, and the group that must pass the workspaces directory. Read from the sandbox
 * at each use, so a server that installs its sandbox later still gets its answer.
 */
import { hostShellSandbox } from './host-shell-sandbox.ts';
import { sandboxFileOwner } from './sandbox-file-owner.ts';
import type { ShellSandbox } from './shell-sandbox.ts';

export function sandboxWorkspaceOwners(sandbox: () => ShellSandbox = hostShellSandbox): {
  ownerOf: (userId: string) => Promise<{ uid: number; gid: number } | undefined>;
  sandboxGroup?: number;
} {
  const group = sandbox().sandboxGroup?.();
  return {
    ownerOf: (userId) => sandboxFileOwner(userId, sandbox()),
    ...(group === undefined ? {} : { sandboxGroup: group }),
  };
}
