/**
 * The lexical half of a path argument: `~` and `~/…` mean the user's personal workspace (the reachable
 * set's home directory, never the server user's home), relative paths resolve against the call's working
 * directory, and `..` is applied lexically. `~user` is an ordinary relative name. Pure.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { ToolArgumentError } from '../errors.ts';
import type { ReachableSet } from './reachable-set.ts';

/** The absolute lexical path a tool argument names in a call that may reach `reachable`. */
export function expandToolPath(input: string, reachable: ReachableSet): string {
  let expanded = input;
  if (input === '~') expanded = reachable.homeDirectory;
  else if (input.startsWith('~/')) expanded = join(reachable.homeDirectory, input.slice(2));
  return isAbsolute(expanded) ? resolve(expanded) : resolve(reachable.workingDirectory, expanded);
}

/** Throws ToolArgumentError for a value no path can be: not a string, empty, or holding a NUL byte. */
export function assertPathArgument(input: unknown, argumentName: string): asserts input is string {
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
