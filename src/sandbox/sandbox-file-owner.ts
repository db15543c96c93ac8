/**
 * Workspace files and their user's uid. When the server runs as root and each user's commands run as
 * that user's own uid, a file the server creates in a workspace (write_file, an upload, a new personal
 * workspace) would belong to root, and the user's next command could read it but not change it. Every
 * place that creates a file or directory in a workspace for a user hands it to that user, so the
 * server (root: it can use anything) and the user's later commands can both use what was written.
 * Files a command writes already belong to its user. The server hands over what it holds open
 * (`handHeldToSandboxUser`, `fchown` on the descriptor), since a name in a tree the tenant changes
 * could lead anywhere by then.
 */
import { lchown } from 'node:fs/promises';
import type { HeldDirectory } from '../descriptors/held-directory.ts';
import { hostShellSandbox } from './host-shell-sandbox.ts';
import type { ShellSandbox } from './shell-sandbox.ts';

/**
 * The uid and gid files created for `userId` in a workspace should get, or undefined when nothing
 * needs changing. Throws a classified ToolError when the user's uid cannot be had.
 */
export async function sandboxFileOwner(
  userId: string,
  sandbox: ShellSandbox = hostShellSandbox(),
): Promise<{ uid: number; gid: number } | undefined> {
  return sandbox.fileOwner?.(userId);
}

/**
 * Gives `path` to `userId`'s uid when the sandbox needs it; a no-op otherwise. By name, so only for a
 * path no tenant can change (a directory an operator or a test prepares); does not follow a final
 * symlink. Throws what `lchown` throws.
 */
export async function handToSandboxUser(
  path: string,
  userId: string,
  sandbox: ShellSandbox = hostShellSandbox(),
): Promise<void> {
  const owner = await sandboxFileOwner(userId, sandbox);
  if (owner === undefined) return;
  await lchown(path, owner.uid, owner.gid);
}

/** Gives the held `directory` to `userId`'s uid when the sandbox needs it, by its descriptor. */
export async function handHeldToSandboxUser(
  directory: HeldDirectory,
  userId: string,
  sandbox: ShellSandbox = hostShellSandbox(),
): Promise<void> {
  const owner = await sandboxFileOwner(userId, sandbox);
  if (owner === undefined) return;
  directory.changeOwner(owner.uid, owner.gid);
}
