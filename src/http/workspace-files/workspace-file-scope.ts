/**
 * What one request of the files routes may reach: the one workspace its `:id` names among the caller's
 * own, and nothing else. The reachable set comes from the workspaces layer (`reachableSetFor`, confined
 * to that workspace, checked again on every request), and every path is decided by the tools' own
 * resolver and access policy on that set, in the file operations of the request's context (the user's
 * file worker, or this process; see sandbox/host-file-operations.ts) — the routes take no access
 * decision of their own beyond the second wall on what those operations answer.
 *
 * Guarantees:
 * - An id that is not one of the caller's workspaces, and every `path` whose real location lies outside
 *   the workspace (`..`, a symlink out, another user's workspace, the server's files), get the one
 *   fixed `outside_workspaces` answer, so nothing about what lies outside can be learnt. A refusal of a
 *   protected path is still logged by the policy, as for a tool.
 * - The user's tool settings (`allowedPaths`, `deniedPaths`) narrow what a model may reach; they do not
 *   apply here, where the user acts on their own files within the isolation rules.
 */
import { type AccessNeed, getAccessPolicy } from '../../tools/access/access-policy.ts';
import type { Workspace } from '../../tools/access/reachable-set.ts';
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
  /** A tool context over the workspace's reachable set: what the request's file operations work on. */
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
 * The second wall: a real location a file operation named (wherever its work ran) is decided again by
 * this server's own policy, without asking the filesystem. Refused, it gets the fixed answer: the scope
 * reaches its one workspace only.
 * @throws WorkspaceError `outside_workspaces`.
 */
export async function requireInWorkspace(
  scope: WorkspaceFileScope,
  real: string,
  need: AccessNeed,
  shown: string,
): Promise<void> {
  const policy = await getAccessPolicy(scope.context);
  try {
    policy.require(real, need, shown, real);
  } catch (error) {
    if (ToolError.isInstance(error) && error.classification === 'permission_denied')
      throw outsideWorkspaces();
    throw error;
  }
}
