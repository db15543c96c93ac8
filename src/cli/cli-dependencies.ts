/**
 * Where CLI commands that act for a user (`mango mcp --user NAME`) get users, saved tool settings and
 * image records: the server's own database (`MANGO_DATA_DIR` → SQLite `<dir>/mango.db`, or
 * `DATABASE_URL` → PostgreSQL), through the same repositories the server and `mango user` use, so a
 * user created with `mango user add` and settings saved through the API apply here too.
 */

import { DatabaseImageRepository } from '../db/database-image-repository.ts';
import { DatabaseToolSettingsRepository } from '../db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../db/database-user-repository.ts';
import type { ImageRepository } from '../images/image-repository.ts';
import { ToolSettingsEvents } from '../settings/tool-settings-events.ts';
import type { ToolSettingsRepository } from '../settings/tool-settings-repository.ts';
import type { UserRepository } from '../users/user-repository.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { openCliDatabase } from './open-cli-database.ts';
import { openWorkspaceService } from './open-workspace-service.ts';

export interface CliDependencies {
  users: UserRepository;
  toolSettings: ToolSettingsRepository;
  /**
   * In-process settings change events (a command that changes settings emits here). Changes made by
   * another process (the API server) are not announced here; `mango mcp` polls for them.
   */
  toolSettingsEvents: ToolSettingsEvents;
  /** Records of generated images, shared with the server so it can serve them. */
  images: ImageRepository;
  /** Where tools that produce files store them (`MANGO_DATA_DIR`, default `./data`). */
  dataDirectory: string;
  /** The users' workspaces, from the shared database and `MANGO_WORKSPACES_DIR`. */
  workspaces: WorkspaceService;
  /** Closes the database connection. */
  close(): Promise<void>;
}

export type OpenCliDependencies = (
  env: Record<string, string | undefined>,
  cwd: string,
) => Promise<CliDependencies>;

/** Opens (and migrates) the configured database and builds the repositories over it. */
export const openCliDependencies: OpenCliDependencies = async (env, cwd) => {
  const { config, database } = await openCliDatabase(env, cwd);
  let workspaces: WorkspaceService;
  try {
    workspaces = openWorkspaceService(config, database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    users: new DatabaseUserRepository(database),
    toolSettings: new DatabaseToolSettingsRepository(database),
    toolSettingsEvents: new ToolSettingsEvents(),
    images: new DatabaseImageRepository(database),
    dataDirectory: config.dataDirectory,
    workspaces,
    close: () => database.close(),
  };
};
