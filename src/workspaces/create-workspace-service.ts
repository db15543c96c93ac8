/**
 * Builds the `WorkspaceService` of a server or CLI command from its configuration: prepares the
 * workspaces directory (refusing one that overlaps the data or installation directory) and assembles
 * the protected set, the same way for every caller.
 */
import type { ServerConfig } from '../config.ts';
import { installationDirectory } from './installation-directory.ts';
import { assembleProtectedPaths } from './protected-paths.ts';
import type { WorkspaceRepository } from './workspace-repository.ts';
import { WorkspaceService } from './workspace-service.ts';
import { prepareWorkspacesDirectory } from './workspaces-directory.ts';

export type WorkspaceConfig = Pick<
  ServerConfig,
  'dataDirectory' | 'workspacesDirectory' | 'workspaceOwner' | 'webDirectory'
>;

/** @throws WorkspacesDirectoryError when the workspaces directory cannot be used. */
export function createWorkspaceService(
  config: WorkspaceConfig,
  repository: WorkspaceRepository,
  now?: () => number,
): WorkspaceService {
  const installation = installationDirectory();
  const workspacesDirectory = prepareWorkspacesDirectory({
    workspacesDirectory: config.workspacesDirectory,
    dataDirectory: config.dataDirectory,
    installationDirectory: installation,
  });
  const protectedPaths = assembleProtectedPaths({
    dataDirectory: config.dataDirectory,
    installationDirectory: installation,
    workspacesDirectory,
    ...(config.webDirectory === undefined ? {} : { webDirectory: config.webDirectory }),
  });
  return new WorkspaceService({
    repository,
    workspacesDirectory,
    protectedPaths,
    ...(config.workspaceOwner === undefined ? {} : { owner: config.workspaceOwner }),
    ...(now === undefined ? {} : { now }),
  });
}
