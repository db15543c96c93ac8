/**
 * The workspace service a CLI command uses: the database's grants, and personal workspaces created for
 * the shell sandbox's uid when commands run as one (as the server's are), so a workspace `mango` makes
 * is one the user's shell commands can use.
 */
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseWorkspaceRepository } from '../db/database-workspace-repository.ts';
import { sandboxFileOwner } from '../sandbox/sandbox-file-owner.ts';
import { createWorkspaceService } from '../workspaces/create-workspace-service.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';

export function openWorkspaceService(config: ServerConfig, database: Database): WorkspaceService {
  const owner = config.workspaceOwner ?? sandboxFileOwner();
  return createWorkspaceService(
    owner === undefined ? config : { ...config, workspaceOwner: owner },
    new DatabaseWorkspaceRepository(database),
  );
}
