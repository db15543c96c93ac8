/**
 * What one request of the files routes may reach: the one workspace its `:id` names among the caller's
 * own, and nothing else. The reachable set comes from the workspaces layer (`reachableSetFor`, confined
 * to that workspace, checked again on every request), and every path is decided by the tools' own
 * resolver and access policy on that set — the routes take no access decision of their own.
 *
 * Guarantees:
 * - An id that is not one of the caller's workspaces, and every `path` whose real location lies outside
 *   the workspace (`..`, a symlink out, another user's workspace, the server's files), get the one
 *   fixed `outside_workspaces` answer, so nothing about what lies outside can be learnt. A refusal of a
 *   protected path is still logged by the policy, as for a tool.
 * - The user's tool settings (`allowedPaths`, `deniedPaths`) narrow what a model may reach; they do not
 *   apply here, where the user acts on their own files within the isolation rules.
 */
import type { Workspace } from '../../tools/access/reachable-set.ts';
import { type ResolvedPath, resolveAndValidatePath } from '../../tools/access/resolve-and-validate-path.ts';
import { ToolError } from '../../tools/errors.ts';
import type { ToolContext } from '../../tools/types.ts';
import { userFileContext } from '../../tools/user-file-context.ts';
import { outsideWorkspaces } from '../../workspaces/workspace-error.ts';
import { WORKSPACE_ID_PATTERN, workspaceId } from '../../workspaces/workspace-id.ts';
import type { WorkspaceService } from '../../workspaces/workspace-service.ts';
import { HttpError } from '../http-errors.ts';

export interface WorkspaceFileScope {
  id: string;
  workspace: Workspace;
  /** A tool context over the workspace's reachable set, for the shared resolver and verified opens. */
  context: ToolContext;
}

/**
 * The scope of `id` for `userId`.
 * @throws WorkspaceError `outside_workspaces` for an id that is not one of theirs.
 */
export async function openWorkspaceFileScope(
  workspaces: WorkspaceService,
  userId: string,
  id: string,
  now: () => number,
): Promise<WorkspaceFileScope> {
  if (!WORKSPACE_ID_PATTERN.test(id)) throw outsideWorkspaces();
  const workspace = (await workspaces.listWorkspaces(userId)).find((entry) => workspaceId(entry.path) === id);
  if (workspace === undefined) throw outsideWorkspaces();
  const { reachable } = await workspaces.reachableSetFor(userId, {
    workingDirectory: workspace.path,
    confined: true,
  });
  return { id, workspace, context: userFileContext(userId, reachable, now) };
}

/**
 * Checks the syntax of a `path` query value: relative to the workspace root (`''` or `.` = the root).
 * @throws HttpError 400 for an absolute or `~` path.
 */
export function workspaceRelativePath(path: string | undefined, parameter = 'path'): string {
  const value = path ?? '';
  if (value.startsWith('/') || value === '~' || value.startsWith('~/')) {
    throw new HttpError(
      400,
      'invalid_request',
      `Query parameter ${parameter} must be relative to the workspace root ("" for the root); got ${JSON.stringify(value)}.`,
    );
  }
  return value === '' ? '.' : value;
}

/**
 * Resolves `relative` inside the scope's workspace for `need`. Any location the policy refuses for
 * reading lies outside the workspace (the scope reaches that workspace only) and gets the fixed answer;
 * a refusal for writing inside it is the read-only workspace's, and keeps its own message.
 * @throws WorkspaceError `outside_workspaces`, ToolError (validation_failed, permission_denied).
 */
export async function resolveInWorkspace(
  scope: WorkspaceFileScope,
  relative: string,
  need: 'read' | 'write' = 'read',
): Promise<ResolvedPath> {
  let resolved: ResolvedPath;
  try {
    resolved = await resolveAndValidatePath(relative, scope.context, 'path', 'read');
  } catch (error) {
    if (ToolError.isInstance(error) && error.classification === 'permission_denied')
      throw outsideWorkspaces();
    throw error;
  }
  if (need === 'write') return resolveAndValidatePath(relative, scope.context, 'path', 'write');
  return resolved;
}

/** Runs a verified open or listing, turning a policy refusal of what was opened into the fixed answer. */
export async function withinWorkspace<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (ToolError.isInstance(error) && error.classification === 'permission_denied')
      throw outsideWorkspaces();
    throw error;
  }
}
