/**
 * The one path resolver every path-taking tool uses (spec: "Built-in Tools" preamble, "enforced by
 * resolveAndValidatePath"; issue 3, "Paths"). A path argument may be absolute, `~` / `~/…`, or relative
 * to the chat's bound working directory (the process working directory when none is bound). The result
 * carries both the lexical and the real location; policy is decided on the real one.
 *
 * This check names a path string. A tool that then opens the path must verify what it actually opened
 * (`openVerifiedFile`), which closes the check-then-open race.
 */
import { resolve } from 'node:path';
import { ToolArgumentError, ToolExecutionError, ToolPermissionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { createPathPolicy, type PathPolicy } from './path-policy.ts';
import { expandAndResolvePath, resolveRealLocation } from './real-location.ts';

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

/** The chat's bound working directory, else `process.cwd()`. */
export function workingDirectoryOf(context: ToolContext): string {
  return context.workingDirectory ? resolve(context.workingDirectory) : process.cwd();
}

/**
 * Refuses a path that can only name a directory (a trailing `/`, like POSIX `open("file/")`), for the
 * tools that take a file: resolving it would silently drop the slash and read, edit or create a file.
 */
export function assertFilePathSyntax(input: string, argumentName = 'path'): void {
  if (input.length > 1 && input.endsWith('/')) {
    throw new ToolArgumentError(
      `Argument "${argumentName}" ${JSON.stringify(input)} ends with "/", so it names a directory; give the file's path without the trailing slash. (write_file creates missing parent directories itself: to make a directory, write a file inside it.)`,
    );
  }
}

const policies = new WeakMap<ToolContext, Promise<PathPolicy>>();

/** The resolved policy of a call, computed once per context (a walk checks thousands of candidates). */
export function getPathPolicy(context: ToolContext): Promise<PathPolicy> {
  let policy = policies.get(context);
  if (!policy) {
    policy = createPathPolicy(context, workingDirectoryOf(context));
    policies.set(context, policy);
  }
  return policy;
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

/**
 * Resolves a path argument and enforces policy (settings `allowedPaths` / `deniedPaths` from
 * `context.settings.parameters`, restricted containment). Throws `ToolArgumentError` (not a string,
 * empty, NUL byte) and `ToolPermissionError` (names the path and the rule). `argumentName` appears in
 * messages.
 */
export async function resolveAndValidatePath(
  input: string,
  context: ToolContext,
  argumentName = 'path',
): Promise<ResolvedPath> {
  if (typeof input !== 'string') {
    throw new ToolArgumentError(`Argument "${argumentName}" must be a string path.`);
  }
  if (input.length === 0) {
    throw new ToolArgumentError(
      `Argument "${argumentName}" must not be empty: give an absolute path, a ~ path, or a path relative to the working directory.`,
    );
  }
  if (input.includes('\0')) {
    throw new ToolArgumentError(`Argument "${argumentName}" contains a NUL byte, which no path may contain.`);
  }
  const absolute = expandAndResolvePath(input, workingDirectoryOf(context));
  let location: { real: string; exists: boolean };
  try {
    location = await resolveRealLocation(absolute);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EACCES' || code === 'EPERM') {
      throw new ToolPermissionError(
        `Cannot resolve ${argumentName} ${JSON.stringify(input)}: the operating system denied access to a directory on the way (${String(code)}).`,
      );
    }
    if (code === 'ELOOP') {
      throw new ToolArgumentError(
        `Cannot resolve ${argumentName} ${JSON.stringify(input)}: it runs into a symlink loop.`,
      );
    }
    throw new ToolExecutionError(
      `Cannot resolve ${argumentName} ${JSON.stringify(input)}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const policy = await getPathPolicy(context);
  const refusal = policy.refusalFor(location.real, absolute, input);
  if (refusal !== undefined) throw new ToolPermissionError(refusal);
  return { input, absolute, real: location.real, exists: location.exists };
}
