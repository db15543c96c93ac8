/**
 * Finds where a requested directory really is, inside a user's workspaces or not, without telling a
 * caller anything about paths outside them.
 *
 * - The answer for every path whose real location lies outside the user's reachable workspaces (it
 *   exists or not, is a file, a link out, another user's, the server's) is one `outside_workspaces`
 *   error with one fixed message.
 * - Only for a location inside them are the specific answers given: `missing`, `not_a_directory`.
 *   A missing path counts as inside only when its deepest existing ancestor really lies inside and the
 *   first missing component is not a dangling link (whose target could be anywhere).
 */
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { accessAt, type ReachableSet } from '../tools/access/reachable-set.ts';
import { outsideWorkspaces, WorkspaceError } from './workspace-error.ts';

/** `~` and `~/…` mean the personal workspace; anything else must be absolute. */
export function expandRequestedPath(requested: string, personalWorkspace: string): string {
  const trimmed = requested.trim();
  if (trimmed === '~') return personalWorkspace;
  if (trimmed.startsWith('~/')) return resolve(personalWorkspace, trimmed.slice(2));
  if (!isAbsolute(trimmed)) {
    throw new WorkspaceError(
      'invalid_path',
      `The working directory must be an absolute path or start with ~/ (your personal workspace); got ${JSON.stringify(requested)}.`,
    );
  }
  return resolve(trimmed);
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The deepest existing ancestor of `path` (real) and the first component below it that is missing. */
async function deepestExisting(path: string): Promise<{ real: string; missing: string }> {
  let missing = basename(path);
  let current = dirname(path);
  while (true) {
    try {
      return { real: await realpath(current), missing };
    } catch {
      if (current === dirname(current)) throw outsideWorkspaces();
      missing = basename(current);
      current = dirname(current);
    }
  }
}

/**
 * The real path of the directory `absolute` names, when it lies where `reachable` reaches.
 * @throws WorkspaceError `outside_workspaces`, `missing` or `not_a_directory`.
 */
export async function locateDirectory(
  absolute: string,
  requested: string,
  reachable: ReachableSet,
): Promise<string> {
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw outsideWorkspaces();
    const ancestor = await deepestExisting(absolute);
    if (accessAt(reachable, ancestor.real) === undefined) throw outsideWorkspaces();
    const first = await lstat(join(ancestor.real, ancestor.missing)).catch(() => undefined);
    if (first?.isSymbolicLink()) throw outsideWorkspaces();
    if (first !== undefined) {
      throw new WorkspaceError('not_a_directory', `The working directory ${requested} is not a directory.`);
    }
    throw new WorkspaceError('missing', `The working directory ${requested} does not exist.`);
  }
  if (accessAt(reachable, real) === undefined) throw outsideWorkspaces();
  const info = await stat(real).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new WorkspaceError('not_a_directory', `The working directory ${requested} is not a directory.`);
  }
  return real;
}
