/**
 * The directory a shell command runs in (parameter `cwd`). `cwd` may be absolute, `~`-prefixed (the
 * personal workspace), or relative to the call's working directory; absent, it is the working directory
 * of the call's reachable set. The access policy (the reachable set, `allowedPaths` / `deniedPaths`)
 * applies through the shared resolveAndValidatePath, to the default directory as much as to an explicit
 * one.
 */
import { stat } from 'node:fs/promises';
import { errorMessage } from '../../errors/error-message.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { classifySystemError, ToolArgumentError, ToolError, ToolNotFoundError } from '../errors.ts';
import type { ToolContext } from '../types.ts';

export interface ShellWorkingDirectory {
  /** Lexical absolute path, reported back in the result. */
  absolute: string;
  /** Real location (symlinks resolved): where the command is started, the place policy judged. */
  real: string;
}

/**
 * Resolves and validates `cwd`. Throws ToolArgumentError (empty, NUL, not a directory),
 * ToolPermissionError (policy, containment) or ToolNotFoundError (missing).
 */
export async function resolveShellWorkingDirectory(
  input: string | undefined,
  context: ToolContext,
): Promise<ShellWorkingDirectory> {
  const resolved = await resolveAndValidatePath(input ?? context.reachable.workingDirectory, context, 'cwd');
  const shown = JSON.stringify(input ?? resolved.absolute);
  if (!resolved.exists) {
    throw new ToolNotFoundError(
      `Working directory ${shown} does not exist (resolved to ${resolved.absolute}). Pass an existing directory as "cwd".`,
    );
  }
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(resolved.real)).isDirectory();
  } catch (error) {
    const message = errorMessage(error);
    throw new ToolError(classifySystemError(error), `Cannot use ${shown} as working directory: ${message}`);
  }
  if (!isDirectory) {
    throw new ToolArgumentError(
      `Working directory ${shown} is a file, not a directory. Pass a directory as "cwd".`,
    );
  }
  return { absolute: resolved.absolute, real: resolved.real };
}
