/**
 * The `mango` command line. Each command lives in `commands/`; this file only dispatches and turns
 * usage mistakes into exit code 2.
 */
import { createProviderRegistry } from '../providers/provider-registry.ts';
import '../tools/builtin/index.ts';
import { removedWorkspaceRootsMessage } from '../config.ts';
import { WorkspacesDirectoryError } from '../workspaces/workspaces-directory.ts';
import { CHAT_USAGE, createChatCommand } from './commands/chat.ts';
import { createMcpCommand, MCP_USAGE } from './commands/mcp.ts';
import { SERVE_USAGE, serveCommand } from './commands/serve.ts';
import { createToolCommand, TOOL_USAGE } from './commands/tool.ts';
import { USER_USAGE, userCommand } from './commands/user.ts';
import { WORKSPACE_USAGE, workspaceCommand } from './commands/workspace.ts';
import { type CliCommand, type CliIo, UsageError } from './usage-error.ts';
import { resolveUserSettingsSource } from './user-settings-source.ts';

const COMMANDS: Record<string, { run: CliCommand; usage: string }> = {
  tool: { run: createToolCommand(resolveUserSettingsSource), usage: TOOL_USAGE },
  serve: { run: serveCommand, usage: `Usage:\n${SERVE_USAGE}` },
  user: { run: userCommand, usage: `Usage:\n${USER_USAGE}` },
  workspace: { run: workspaceCommand, usage: `Usage:\n${WORKSPACE_USAGE}` },
  mcp: { run: createMcpCommand(), usage: MCP_USAGE },
  chat: {
    run: createChatCommand({
      createProvider: (providerId, env) => {
        const providers = createProviderRegistry(env);
        const provider = providers.get(providerId);
        // The command prints this as `provider "P" is not available: <reason>` and exits 1.
        if (!provider) throw new Error(providers.status(providerId).reason ?? 'it is not configured.');
        return provider;
      },
    }),
    usage: CHAT_USAGE,
  },
};

const USAGE = `mango — tool calling for LLM chats

${Object.values(COMMANDS)
  .map((command) => command.usage)
  .join('\n')}`;

/** Runs the CLI in-process and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  const removed = removedWorkspaceRootsMessage(io.env);
  if (removed !== undefined) {
    io.stderr(`mango: ${removed}\n`);
    return 2;
  }
  try {
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof WorkspacesDirectoryError) {
      io.stderr(`mango: ${error.message}\n`);
      return 2;
    }
    // parseArgs reports unknown flags with ERR_PARSE_ARGS_* codes: those are usage mistakes too.
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`mango: ${(error as Error).message}\n\n${command?.usage ?? USAGE}\n`);
      return 2;
    }
    throw error;
  }
}

if (import.meta.main) {
  const exitCode = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: process.env,
  });
  process.exitCode = exitCode;
}
