/**
 * `mango mcp-servers list | test`: what the operator's external MCP servers file (`MANGO_MCP_SERVERS`)
 * declares, and whether a server answers. `list` reads the file only; with `--user` it connects as
 * that user (stdio programs in the shell sandbox, in the user's personal workspace) and shows every
 * server of theirs — the operator's and their own — with its state and tool count, as the tools page
 * does. `test NAME --user USER` connects to one of them, lists its tools under their Mango names and
 * exits 1 when it fails, with the reason.
 */
import { ConfigError } from '../../config/config-error.ts';
import { readVariable } from '../../config/environment-variables.ts';
import type { McpServerDeclaration } from '../../config/mcp-servers-file.ts';
import { DatabaseUserRepository } from '../../db/database-user-repository.ts';
import type { ExternalTools } from '../../mcp-client/create-external-tool-source.ts';
import type { McpServerState } from '../../mcp-client/external-tool-source.ts';
import { defaultToolRegistry } from '../../tools/registry.ts';
import { openCliExternalTools } from '../cli-tool-registry.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';

export const MCP_SERVERS_USAGE = `  mango mcp-servers list [--user NAME] [--json]   the external MCP servers (MANGO_MCP_SERVERS); --user: their state
  mango mcp-servers test SERVER --user NAME        connect to one server as NAME and list its tools`;

function describeServer(server: McpServerDeclaration): string {
  if (server.transport === 'http') return `http  ${server.url}`;
  return `stdio ${[server.command, ...server.args].join(' ')} (network: ${server.network})`;
}

function describeState(state: McpServerState): string {
  if (state.status === 'failed') return `failed: ${state.error ?? 'no reason given'}`;
  return `connected, ${state.toolCount ?? 0} tool${state.toolCount === 1 ? '' : 's'}`;
}

async function withExternalTools(
  io: CliIo,
  userName: string | undefined,
  use: (external: ExternalTools, userId: string | undefined) => Promise<number>,
): Promise<number> {
  if (userName === undefined && readVariable(io.env, 'MANGO_MCP_SERVERS') === undefined) {
    io.stderr('mango: MANGO_MCP_SERVERS is not set: the operator offers no external MCP servers.\n');
    return 1;
  }
  return withCliDatabase(io, async (database) => {
    let external: ExternalTools;
    try {
      external = openCliExternalTools(io, database, defaultToolRegistry);
    } catch (error) {
      if (error instanceof ConfigError) {
        io.stderr(`mango: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    let userId: string | undefined;
    if (userName !== undefined) {
      const user = await new DatabaseUserRepository(database).findByName(userName);
      if (!user) {
        io.stderr(`mango: no user named "${userName}" (see \`mango user list\`).\n`);
        await external.close();
        return 1;
      }
      userId = user.id;
    }
    try {
      return await use(external, userId);
    } finally {
      await external.close();
    }
  });
}

async function list(io: CliIo, userName: string | undefined, json: boolean): Promise<number> {
  return withExternalTools(io, userName, async (external, userId) => {
    const states = userId === undefined ? undefined : await external.source.serverStates(userId);
    const own = userId === undefined ? [] : await (external.userServers?.serversFor(userId) ?? []);
    const servers: McpServerDeclaration[] = [...external.servers.operatorServers(), ...own];
    if (json) {
      io.stdout(
        `${JSON.stringify(
          {
            servers: servers.map((server) => ({
              ...server,
              ...(server.transport === 'http' ? { headers: Object.keys(server.headers) } : {}),
              ...(server.transport === 'stdio' ? { env: Object.keys(server.env) } : {}),
              state: states?.servers.find((state) => state.name === server.name),
            })),
          },
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (servers.length === 0) io.stdout('No MCP servers are declared.\n');
    for (const server of servers) {
      const state = states?.servers.find((entry) => entry.name === server.name);
      io.stdout(`${server.name}  ${describeServer(server)}${state ? `  — ${describeState(state)}` : ''}\n`);
    }
    return 0;
  });
}

async function testServer(io: CliIo, name: string, userName: string): Promise<number> {
  return withExternalTools(io, userName, async (external, userId) => {
    const { servers } = await external.source.serverStates(userId ?? '');
    const state = servers.find((server) => server.name === name);
    if (!state) {
      const names = servers.map((server) => server.name).join(', ') || 'none';
      io.stderr(`mango: ${userName} has no MCP server "${name}"; they have ${names}.\n`);
      return 1;
    }
    if (state.status === 'failed') {
      io.stderr(`mango: ${name}: ${state.error ?? 'no reason given'}\n`);
      return 1;
    }
    io.stdout(`${name}: ${describeState(state)}\n`);
    for (const tool of state.tools ?? []) io.stdout(`  ${tool}\n`);
    return 0;
  });
}

export const mcpServersCommand: CliCommand = async (argv, io) => {
  const [subcommand, ...rest] = argv;
  const { values, positionals } = parseCommandLine(rest, {
    user: { type: 'string' },
    json: { type: 'boolean' },
  });
  switch (subcommand) {
    case 'list':
      if (positionals.length > 0)
        throw new UsageError(`mango mcp-servers list takes no arguments, got ${positionals.join(' ')}.`);
      return list(io, values.user, values.json === true);
    case 'test': {
      const [name, ...extra] = positionals;
      if (name === undefined || extra.length > 0)
        throw new UsageError('mango mcp-servers test takes one SERVER name.');
      if (values.user === undefined)
        throw new UsageError('mango mcp-servers test needs --user NAME: servers run as a user.');
      return testServer(io, name, values.user);
    }
    default:
      throw new UsageError(
        `Unknown mcp-servers command ${JSON.stringify(subcommand ?? '')}; use list or test.`,
      );
  }
};
