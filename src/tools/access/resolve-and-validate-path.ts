/**
 * The one path resolver every path-taking tool uses. A path argument may be absolute, `~` / `~/…` (the
 * user's personal workspace), or relative to the call's working directory; it is resolved to its real
 * location (every symlink followed, a not-yet-existing tail appended to its nearest existing ancestor),
 * where the call's file work runs (location-resolution.ts), and decided there by the call's access policy. Nothing falls back to the server process's own directory.
 *
 * This check names a path string. A tool that then opens the path must verify what it actually opened
 * (`openVerifiedForReading`, `verifyDescriptor`), which closes the check-then-open race.
 */
import { errorMessage } from '../../errors/error-message.ts';
import { ToolArgumentError, ToolExecutionError, ToolPermissionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { type AccessNeed, getAccessPolicy } from './access-policy.ts';
import { locationResolverFor } from './location-resolution.ts';
import { assertPathArgument, expandToolPath } from './tool-path-syntax.ts';

export interface ResolvedPath {
  /** As the model gave it. */
  input: string;
  /** Lexically resolved absolute path (`~` expanded, relative to the working directory). */
  absolute: string;
  /**
   * Real location: symlinks resolved; for a not-yet-existing tail, the nearest existing ancestor's real
   * path plus the remaining components.
   */
  real: string;
  exists: boolean;
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * Resolves a path argument and decides it for `need`. Throws ToolArgumentError (not a string, empty, NUL
 * byte, symlink loop) and ToolPermissionError (names the path and the rule, or says the path changed
 * while it was resolved). `argumentName` appears in
 * messages.
 */
export async function resolveAndValidatePath(
  input: string,
  context: ToolContext,
  argumentName = 'path',
  need: AccessNeed = 'read',
): Promise<ResolvedPath> {
  assertPathArgument(input, argumentName);
  const policy = await getAccessPolicy(context);
  const absolute = expandToolPath(input, policy.reachable);
  // The lexical location alone may already belong to the server (`/proc/self/environ`): refuse before
  // asking the filesystem anything about it.
  const lexicalRefusal = policy.refusalFor(absolute, need, input, absolute);
  if (lexicalRefusal?.protectedPath !== undefined) policy.require(absolute, need, input, absolute);
  let location: { real: string; exists: boolean };
  try {
    location = await locationResolverFor(context)(absolute);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ToolPermissionError(
        `Cannot resolve ${argumentName} ${JSON.stringify(input)}: the operating system denied access to a directory on the way (${String(code)}).`,
      );
    }
    if (code === 'path_changed') {
      throw new ToolPermissionError(
        `Cannot resolve ${argumentName} ${JSON.stringify(input)}: the path changed while the tool was using it (a file or directory on it was moved, or replaced by a link), so nothing was done there. Check it with list_directory and try again.`,
      );
    }
    if (code === 'ELOOP') {
      throw new ToolArgumentError(
        `Cannot resolve ${argumentName} ${JSON.stringify(input)}: it runs into a symlink loop.`,
      );
    }
    throw new ToolExecutionError(
      `Cannot resolve ${argumentName} ${JSON.stringify(input)}: ${errorMessage(error)}`,
    );
  }
  policy.require(location.real, need, input, absolute);
  return { input, absolute, real: location.real, exists: location.exists };
}
