/**
 * The tools a CLI command's calls see. In operator mode (no `--user`) they are the builtins: external
 * MCP servers are offered to users, and their connections, state directories and process limits
 * belong to one. With `--user NAME` they are what NAME's chats see: the builtins plus the tools of
 * every external MCP server NAME has (the operator's `MANGO_MCP_SERVERS` and NAME's own), connected
 * as NAME, in NAME's sandbox, and closed when the command ends.
 */
import { ConfigError } from '../config/config-error.ts';
import type { Database } from '../db/database.ts';
import { DatabaseUserMcpServerRepository } from '../db/database-user-mcp-server-repository.ts';
import { createExternalTools, type ExternalTools } from '../mcp-client/create-external-tool-source.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { loadCliConfig } from './load-cli-config.ts';
import { withCliDatabase } from './open-cli-database.ts';
import { openWorkspaceService } from './open-workspace-service.ts';
import { type CliIo, UsageError } from './usage-error.ts';

/**
 * The external MCP tools over the command's database; what goes wrong while listing a server is
 * written to stderr. @throws ConfigError for a malformed `MANGO_MCP_SERVERS`.
 */
export function openCliExternalTools(io: CliIo, database: Database, builtins: ToolRegistry): ExternalTools {
  const config = loadCliConfig(io);
  const external = createExternalTools({
    environment: io.env,
    builtins,
    dataDirectory: config.dataDirectory,
    workspaces: openWorkspaceService(config, database),
    userServerRepository: new DatabaseUserMcpServerRepository(database),
    log: (line) => io.stderr(`${line}\n`),
  });
  if (!external) throw new Error('external tools are always built over a database');
  return external;
}

/** Runs `use` with the registry the calls of `userId` see (undefined: operator mode, the builtins). */
export async function withCliToolRegistry<T>(
  io: CliIo,
  userId: string | undefined,
  builtins: ToolRegistry,
  use: (registry: ToolRegistry) => Promise<T>,
): Promise<T> {
  if (userId === undefined) return use(builtins);
  return withCliDatabase(io, async (database) => {
    let external: ExternalTools;
    try {
      external = openCliExternalTools(io, database, builtins);
    } catch (error) {
      if (error instanceof ConfigError) throw new UsageError(error.message);
      throw error;
    }
    try {
      return await use(await external.source.registryFor(userId));
    } finally {
      await external.close();
    }
  });
}
