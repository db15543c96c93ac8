/**
 * Which directories a chat may bind as its working directory (issue 7, "Chat API"): the directory must
 * exist and lie under one of the workspace roots (`MANGO_WORKSPACE_ROOTS`, default the server user's
 * home). Both sides are compared as real paths, so a symbolic link inside a root that points outside
 * it is refused, and the chat stores the real path.
 */
import { realpath, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { ChatError } from './chat-errors.ts';

/**
 * Parses `MANGO_WORKSPACE_ROOTS`: absolute paths separated by the platform's path-list delimiter
 * (`:` on POSIX, `;` on Windows), `~` expanded. Unset or blank → `[homeDirectory]`.
 * @throws Error naming the first entry that is not absolute.
 */
export function parseWorkspaceRoots(value: string | undefined, homeDirectory: string): string[] {
  const entries = (value ?? '')
    .split(delimiter)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => expandHome(entry, homeDirectory));
  for (const entry of entries) {
    if (!isAbsolute(entry)) {
      throw new Error(`MANGO_WORKSPACE_ROOTS entries must be absolute paths; "${entry}" is not.`);
    }
  }
  return entries.length > 0 ? entries : [homeDirectory];
}

function expandHome(path: string, homeDirectory: string): string {
  if (path === '~') return homeDirectory;
  if (path.startsWith('~/')) return join(homeDirectory, path.slice(2));
  return path;
}

function isWithin(root: string, path: string): boolean {
  if (path === root) return true;
  const difference = relative(root, path);
  return (
    difference !== '' && !difference.startsWith(`..${sep}`) && difference !== '..' && !isAbsolute(difference)
  );
}

/**
 * Resolves a requested working directory (absolute or `~`-prefixed) to its real path.
 * @throws ChatError `invalid_working_directory` when it is relative, missing, not a directory, or
 * outside every (existing) workspace root.
 */
export async function resolveChatWorkingDirectory(
  requested: string,
  workspaceRoots: readonly string[],
  homeDirectory: string,
): Promise<string> {
  const expanded = expandHome(requested.trim(), homeDirectory);
  if (!isAbsolute(expanded)) {
    throw new ChatError(
      'invalid_working_directory',
      `The working directory must be an absolute path (or start with ~/); "${requested}" is not.`,
    );
  }
  let real: string;
  try {
    real = await realpath(expanded);
  } catch {
    throw new ChatError('invalid_working_directory', `The working directory "${requested}" does not exist.`);
  }
  if (!(await stat(real)).isDirectory()) {
    throw new ChatError(
      'invalid_working_directory',
      `The working directory "${requested}" is not a directory.`,
    );
  }
  const realRoots: string[] = [];
  for (const root of workspaceRoots) {
    try {
      realRoots.push(await realpath(root));
    } catch {
      // A root that does not exist admits nothing.
    }
  }
  if (!realRoots.some((root) => isWithin(root, real))) {
    const via = real === expanded ? '' : ` (it resolves to ${real})`;
    throw new ChatError(
      'invalid_working_directory',
      `The working directory "${requested}"${via} is outside the workspace roots this server allows: ` +
        `${workspaceRoots.join(', ')}.`,
    );
  }
  return real;
}

/**
 * The creation-time check again, for a directory bound earlier (a chat before each turn, an MCP session
 * before each call): it may have been removed, replaced by a symbolic link (restricted tools follow
 * it, so a link out of the roots would move the binding out), or the roots narrowed since. Its real
 * path must still be the stored one.
 * @throws ChatError `invalid_working_directory`.
 */
export async function recheckChatWorkingDirectory(
  stored: string,
  workspaceRoots: readonly string[],
  homeDirectory: string,
): Promise<void> {
  const real = await resolveChatWorkingDirectory(stored, workspaceRoots, homeDirectory);
  if (real !== stored) {
    throw new ChatError(
      'invalid_working_directory',
      `The working directory "${stored}" now resolves to ${real}; bind it again to work there.`,
    );
  }
}
