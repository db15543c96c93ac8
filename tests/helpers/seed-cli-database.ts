/**
 * Seeds the database a `mango` process started with `MANGO_DATA_DIR=<dataDirectory>` will open (SQLite
 * `<dataDirectory>/mango.db`), through the same code path the CLI uses (`openCliDependencies`): users
 * created by the user repository, tool settings saved by the settings repository. The connection is
 * closed before this returns, so child processes have the file to themselves.
 */
import { openCliDependencies } from '../../src/cli/cli-dependencies.ts';
import type { SavedToolSettings } from '../../src/tools/types.ts';

export interface CliDatabaseSeed {
  users: string[];
  /** `MANGO_WORKSPACES_DIR` of the processes that will use the database (default: the CLI's default). */
  workspacesDirectory?: string;
  /** Directories granted (read-write) by user name. */
  grants?: Record<string, string[]>;
  /** Saved settings by user name, then tool name. */
  toolSettings?: Record<string, Record<string, SavedToolSettings>>;
}

/** Creates the users and their settings; returns each user's API token by name. */
export async function seedCliDatabase(
  dataDirectory: string,
  seed: CliDatabaseSeed,
): Promise<Record<string, string>> {
  const dependencies = await openCliDependencies(
    {
      MANGO_DATA_DIR: dataDirectory,
      ...(seed.workspacesDirectory === undefined ? {} : { MANGO_WORKSPACES_DIR: seed.workspacesDirectory }),
    },
    dataDirectory,
  );
  try {
    const tokens: Record<string, string> = {};
    const ids: Record<string, string> = {};
    for (const name of seed.users) {
      const { user, token } = await dependencies.users.create(name);
      tokens[name] = token;
      ids[name] = user.id;
    }
    for (const [userName, rows] of Object.entries(seed.toolSettings ?? {})) {
      const userId = ids[userName];
      if (userId === undefined) throw new Error(`Seed: settings for "${userName}", who is not in users.`);
      for (const [toolName, row] of Object.entries(rows)) {
        await dependencies.toolSettings.put(userId, toolName, row);
      }
    }
    for (const [userName, directories] of Object.entries(seed.grants ?? {})) {
      const userId = ids[userName];
      if (userId === undefined) throw new Error(`Seed: grants for "${userName}", who is not in users.`);
      for (const directory of directories) await dependencies.workspaces.grant(userId, directory, false);
    }
    return tokens;
  } finally {
    await dependencies.close();
  }
}
