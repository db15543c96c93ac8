/**
 * Binds a session that is not a stored chat (an MCP session over stdio or HTTP, a CLI command acting
 * for a user) by the rules a chat follows: the working directory lies inside one of the user's
 * workspaces (omitted: the personal workspace), the session is confined to it unless it asks for
 * `unrestricted` and the user is allowed it, and `resolveAccess` computes the access again each time
 * it is called (before every call), so a revoke applies at the next call.
 */
import { type ToolAccessContext, toolAccessContext } from './tool-access.ts';
import type { WorkspaceBinding, WorkspaceService } from './workspace-service.ts';

export interface BoundWorkingDirectory {
  binding: WorkspaceBinding;
  resolveAccess: () => Promise<ToolAccessContext>;
}

/**
 * @param request.cwd absolute, `~` or `~/…`; undefined = the personal workspace.
 * @throws WorkspaceError (outside the user's workspaces: the one fixed message).
 */
export async function bindWorkingDirectory(
  workspaces: WorkspaceService,
  userId: string,
  request: { cwd: string | undefined; unrestricted: boolean },
): Promise<BoundWorkingDirectory> {
  await workspaces.checkUnrestricted(userId, request.unrestricted);
  const workingDirectory = await workspaces.resolveWorkingDirectory(userId, request.cwd);
  const binding: WorkspaceBinding = { workingDirectory, confined: !request.unrestricted };
  return {
    binding,
    resolveAccess: async () => {
      const access = await workspaces.reachableSetFor(userId, binding);
      return toolAccessContext(access.reachable);
    },
  };
}
