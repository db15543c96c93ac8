/**
 * `mango tool call|replay --user NAME`: runs tools with that user's saved settings from the configured
 * database. All the user's rows are read up front and the database is closed before any tool runs; a
 * corrupted stored value falls back to its default with a warning on stderr, as in a chat.
 */
import { DatabaseToolSettingsRepository } from '../db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../db/database-user-repository.ts';
import { getTool } from '../tools/registry.ts';
import { sanitizeSavedSettings } from '../tools/tool-settings-resolver.ts';
import type { SavedSettingsSource } from './commands/tool.ts';
import { withCliDatabase } from './open-cli-database.ts';
import { type CliIo, UsageError } from './usage-error.ts';

/** Removes `--user NAME` / `--user=NAME` from `argv`; returns the name (undefined when absent). */
export function extractUserOption(argv: string[]): { argv: string[]; userName: string | undefined } {
  const remaining: string[] = [];
  let userName: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--') {
      remaining.push(...argv.slice(index));
      break;
    }
    if (argument === '--user') {
      const value = argv[index + 1];
      if (value === undefined) throw new UsageError('--user needs a user NAME.');
      userName = value;
      index++;
    } else if (argument.startsWith('--user=')) {
      userName = argument.slice('--user='.length);
    } else {
      remaining.push(argument);
    }
  }
  if (userName === '') throw new UsageError('--user needs a user NAME.');
  return { argv: remaining, userName };
}

/** The `resolveSource` hook of `createToolCommand`. */
export async function resolveUserSettingsSource(
  argv: string[],
  io: CliIo,
): Promise<{ argv: string[]; source: SavedSettingsSource }> {
  const { argv: remaining, userName } = extractUserOption(argv);
  if (userName === undefined)
    return { argv: remaining, source: { userId: 'cli', load: async () => undefined } };
  const { userId, rows } = await withCliDatabase(io, async (database) => {
    const user = await new DatabaseUserRepository(database).findByName(userName);
    if (!user) throw new UsageError(`No user named "${userName}" (see \`mango user list\`).`);
    return { userId: user.id, rows: await new DatabaseToolSettingsRepository(database).getAll(user.id) };
  });
  return {
    argv: remaining,
    source: {
      userId,
      userName,
      load: async (toolName) => {
        const tool = getTool(toolName);
        if (!tool) return undefined;
        return sanitizeSavedSettings(tool, rows[toolName], (error) =>
          io.stderr(`mango: saved setting of user "${userName}" ignored: ${error.message}\n`),
        );
      },
    },
  };
}
