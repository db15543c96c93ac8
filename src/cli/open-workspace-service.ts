/**
 * The workspace service a CLI command uses: the database's grants, and personal workspaces created for
 * their user's uid when commands run as a uid per user (as the server's are), so a workspace `mango`
 * makes is one the user's shell commands can use.
 */
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseWorkspaceRepository } from '../db/database-workspace-repository.ts';
import { sandboxWorkspaceOwners } from '../sandbox/sandbox-workspace-owners.ts';
import { createWorkspaceService } from '../workspaces/create-workspace-service.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';

export function openWorkspaceService(config: ServerConfig, database: Database): WorkspaceService {
  return createWorkspaceService(
    config,
    new DatabaseWorkspaceRepository(database),
    undefined,
    sandboxWorkspaceOwners(),
  );
}
