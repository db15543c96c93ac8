/**
 * Builds the `WorkspaceService` of a server or CLI command from its configuration: prepares the
 * workspaces directory (refusing one that overlaps the data or installation directory), assembles
 * the protected set and gives it the disk quotas of personal workspaces, the same way for every caller.
 */

import type { ServerConfig } from '../config.ts';
import type { GrantPreparation } from '../contracts/grant-preparation.ts';
import { assembleProtectedPaths } from './assemble-protected-paths.ts';
import { installationDirectory } from './installation-directory.ts';
import { WorkspaceDisks } from './workspace-disks.ts';
import type { WorkspaceOwner } from './workspace-ownership.ts';
import type { WorkspaceRepository } from './workspace-repository.ts';
import { WorkspaceService } from './workspace-service.ts';
import { prepareWorkspacesDirectory } from './workspaces-directory.ts';

export type WorkspaceConfig = Pick<
  ServerConfig,
  'dataDirectory' | 'workspacesDirectory' | 'webDirectory' | 'userDiskBytes'
>;

/** What the shell sandbox decides about workspaces' owners (all absent when nothing is handed over). */
export interface WorkspaceOwners {
  /** Who a user's new personal workspace belongs to. */
  ownerOf?: (userId: string) => Promise<WorkspaceOwner | undefined>;
  /** The group every sandboxed uid carries: the workspaces directory is `0710` root and it. */
  sandboxGroup?: number;
  /** What a grant needs before it is stored: its group, and the user's uid reaching it. */
  prepareGrant?: GrantPreparation;
}

/** @throws WorkspacesDirectoryError when the workspaces directory cannot be used. */
export function createWorkspaceService(
  config: WorkspaceConfig,
  repository: WorkspaceRepository,
  now?: () => number,
  owners: WorkspaceOwners = {},
): WorkspaceService {
  const installation = installationDirectory();
  const workspacesDirectory = prepareWorkspacesDirectory({
    workspacesDirectory: config.workspacesDirectory,
    dataDirectory: config.dataDirectory,
    installationDirectory: installation,
    ...(owners.sandboxGroup === undefined ? {} : { sandboxGroup: owners.sandboxGroup }),
  });
  const protectedPaths = assembleProtectedPaths({
    dataDirectory: config.dataDirectory,
    installationDirectory: installation,
    workspacesDirectory,
    ...(config.webDirectory === undefined ? {} : { webDirectory: config.webDirectory }),
  });
  // Always given, with or without a default quota: a workspace made as an image is used only mounted.
  const disks = new WorkspaceDisks({
    dataDirectory: config.dataDirectory,
    workspacesDirectory,
    defaultQuotaBytes: config.userDiskBytes,
    repository,
  });
  return new WorkspaceService({
    repository,
    workspacesDirectory,
    protectedPaths,
    disks,
    ...(owners.ownerOf === undefined ? {} : { ownerOf: owners.ownerOf }),
    ...(owners.prepareGrant === undefined ? {} : { prepareGrant: owners.prepareGrant }),
    ...(now === undefined ? {} : { now }),
  });
}
