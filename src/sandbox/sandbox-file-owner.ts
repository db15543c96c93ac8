/**
 * Workspace files and the sandbox user. When the server runs as root and commands run as the sandbox
 * uid, a file the server creates in a workspace (write_file, a new personal workspace) would belong to
 * root, and the user's next command could read it but not change it. Every place that creates a file
 * or directory in a workspace hands it over, so the server (root: it can use anything) and the user's
 * later commands can both use what was written. Files a command writes already belong to the sandbox
 * uid. The server hands over what it holds open (`handHeldToSandboxUser`, `fchown` on the descriptor),
 * since a name in a tree the tenant changes could lead anywhere by then.
 */
import { lchown } from 'node:fs/promises';
import type { HeldDirectory } from '../descriptors/held-directory.ts';
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

/** Gives the held `directory` to the sandbox user when the sandbox needs it, by its descriptor. */
export function handHeldToSandboxUser(
  directory: HeldDirectory,
  sandbox: ShellSandbox = hostShellSandbox(),
): void {
  const owner = sandboxFileOwner(sandbox);
  if (owner === undefined) return;
  directory.changeOwner(owner.uid, owner.gid);
}
