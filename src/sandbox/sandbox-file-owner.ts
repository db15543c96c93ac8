/**
 * Workspace files and the sandbox user. When the server runs as root and commands run as the sandbox
 * uid, a file the server creates in a workspace (write_file, a new personal workspace) would belong to
 * root, and the user's next command could read it but not change it. Every place that creates a file
 * or directory in a workspace calls `handToSandboxUser` on it, so the server (root: it can use anything)
 * and the user's later commands can both use what was written. Files a command writes already belong
 * to the sandbox uid.
 */
import { lchown } from 'node:fs/promises';
import { hostShellSandbox } from './host-shell-sandbox.ts';
import type { ShellSandbox } from './shell-sandbox.ts';

/** The uid and gid files created in a workspace should get, or undefined when nothing needs changing. */
export function sandboxFileOwner(
  sandbox: ShellSandbox = hostShellSandbox(),
): { uid: number; gid: number } | undefined {
  return sandbox.fileOwner?.();
}

/**
 * Gives `path` to the sandbox user when the sandbox needs it (see the module header); a no-op
 * otherwise. Does not follow a final symlink. Throws what `lchown` throws.
 */
export async function handToSandboxUser(
  path: string,
  sandbox: ShellSandbox = hostShellSandbox(),
): Promise<void> {
  const owner = sandboxFileOwner(sandbox);
  if (owner === undefined) return;
  await lchown(path, owner.uid, owner.gid);
}
