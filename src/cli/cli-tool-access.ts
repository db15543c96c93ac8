/**
 * What a CLI command's tools may reach (`mango tool call|replay`, `mango chat`):
 *
 * - without `--user`: operator mode. The operator already has a shell on this machine, so the whole
 *   filesystem is reachable read-write, minus the protected set (data directory, installation
 *   directory, workspaces directory, `/proc`, `/sys`, `/dev`), which no tool call ever reaches;
 * - with `--user NAME`: exactly what that user's chats reach. `--cwd` must lie inside one of the user's
 *   workspaces (omitted: the personal workspace) and the command is confined to it unless it passes
 *   `--unrestricted` and the user is allowed it.
 */

import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { readVariable } from '../config/environment-variables.ts';
import { DatabaseUserRepository } from '../db/database-user-repository.ts';
import { computeOperatorReachableSet } from '../tools/access/reachable-set.ts';
import { assembleProtectedPaths } from '../workspaces/assemble-protected-paths.ts';
import { bindWorkingDirectory } from '../workspaces/bind-working-directory.ts';
import { installationDirectory } from '../workspaces/installation-directory.ts';
import { type ToolAccessContext, toolAccessContext } from '../workspaces/tool-access.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import { loadCliConfig } from './load-cli-config.ts';
import { withCliDatabase } from './open-cli-database.ts';
import { openWorkspaceService } from './open-workspace-service.ts';
import { type CliIo, UsageError } from './usage-error.ts';

export interface CliAccessRequest {
  /** `--user NAME`; undefined = operator mode. */
  userName: string | undefined;
  /** `--cwd DIR` as given (relative to the command's directory, or `~`…). */
  cwd: string | undefined;
  /** `--unrestricted`. */
  unrestricted: boolean;
}

export interface CliAccess {
  /** The user the calls run as (`cli` in operator mode). */
  userId: string;
  access: ToolAccessContext;
  confined: boolean;
}

async function operatorAccess(io: CliIo, cwd: string | undefined): Promise<CliAccess> {
  const config = loadCliConfig(io);
  const requested = resolve(io.cwd, cwd ?? '.');
  let workingDirectory: string;
  try {
    workingDirectory = await realpath(requested);
  } catch {
    throw new UsageError(`--cwd ${cwd ?? requested} is not an existing directory.`);
  }
  if (!(await stat(workingDirectory)).isDirectory()) {
    throw new UsageError(`--cwd ${cwd ?? requested} is not a directory.`);
  }
  const protectedPaths = assembleProtectedPaths({
    dataDirectory: config.dataDirectory,
    installationDirectory: installationDirectory(),
    workspacesDirectory: config.workspacesDirectory,
    ...(config.webDirectory === undefined ? {} : { webDirectory: config.webDirectory }),
  }).map((entry) => entry.path);
  const home = readVariable(io.env, 'HOME') ?? homedir();
  const reachable = computeOperatorReachableSet(workingDirectory, home, protectedPaths);
  return { userId: 'cli', access: toolAccessContext(reachable), confined: false };
}

/** Resolves what the command's tools may reach. @throws UsageError saying what is wrong. */
export async function resolveCliAccess(io: CliIo, request: CliAccessRequest): Promise<CliAccess> {
  if (request.userName === undefined) {
    if (request.unrestricted) {
      throw new UsageError(
        '--unrestricted applies with --user NAME; without it the command runs in operator mode.',
      );
    }
    return operatorAccess(io, request.cwd);
  }
  const userName = request.userName;
  const config = loadCliConfig(io);
  return withCliDatabase(io, async (database) => {
    const user = await new DatabaseUserRepository(database).findByName(userName);
    if (!user) throw new UsageError(`No user named "${userName}" (see \`mango user list\`).`);
    const workspaces = openWorkspaceService(config, database);
    const cwd =
      request.cwd === undefined || request.cwd.startsWith('~') || isAbsolute(request.cwd)
        ? request.cwd
        : resolve(io.cwd, request.cwd);
    try {
      const bound = await bindWorkingDirectory(workspaces, user.id, {
        cwd,
        unrestricted: request.unrestricted,
      });
      const { reachable, confined } = await workspaces.reachableSetFor(user.id, bound.binding);
      return { userId: user.id, access: toolAccessContext(reachable), confined };
    } catch (error) {
      if (WorkspaceError.isInstance(error)) throw new UsageError(`--cwd: ${error.message}`);
      throw error;
    }
  });
}
