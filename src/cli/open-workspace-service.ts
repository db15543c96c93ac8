/**
 * The workspace service a CLI command uses: the database's grants, and personal workspaces created for
 * their user's uid when commands run as a uid per user (as the server's are), so a workspace `mango`
 * makes is one the user's shell commands can use. A command that grants passes its environment: each
 * grant then gets its group from the database's sandbox ids and, when the command runs as root, is
 * refused unless the user's uid can reach the directory (sandbox/sandbox-grant-preparation.ts).
 */

import type { Environment } from '../config/environment-variables.ts';
import type { ServerConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { DatabaseSandboxIdRepository } from '../db/database-sandbox-id-repository.ts';
import { DatabaseWorkspaceRepository } from '../db/database-workspace-repository.ts';
import { createSandboxGrantPreparation } from '../sandbox/sandbox-grant-preparation.ts';
import { sandboxWorkspaceOwners } from '../sandbox/sandbox-workspace-owners.ts';
import { createWorkspaceService } from '../workspaces/create-workspace-service.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';

export function openWorkspaceService(
  config: ServerConfig,
  database: Database,
  grantEnvironment?: Environment,
): WorkspaceService {
  return createWorkspaceService(config, new DatabaseWorkspaceRepository(database), undefined, {
    ...sandboxWorkspaceOwners(),
    ...(grantEnvironment === undefined
      ? {}
      : {
          prepareGrant: createSandboxGrantPreparation(grantEnvironment, {
            ids: new DatabaseSandboxIdRepository(database),
          }),
        }),
  });
}
