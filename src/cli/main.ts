/**
 * The `mango` command line. Each command lives in `commands/`; this file only dispatches, answers
 * `--help` / `--version` (also `mango COMMAND --help`), and turns usage mistakes into one line on
 * stderr and exit code 2. A failure no command handled is one line too (exit 1), never a stack trace.
 */
import packageJson from '../../package.json' with { type: 'json' };
import { processEnvironment } from '../config/process-environment.ts';
import { createProviderRegistry } from '../providers/provider-registry.ts';
import '../tools/builtin/register-builtin-tools.ts';
import { removedWorkspaceRootsMessage } from '../config.ts';
import { DataDirectoryError } from '../db/data-directory.ts';
import { provideSandboxIds } from '../sandbox/host-shell-sandbox.ts';
import { WorkspaceDiskError } from '../workspaces/workspace-disk-error.ts';
import { WorkspacesDirectoryError } from '../workspaces/workspaces-directory.ts';
import { cliSandboxIds } from './cli-sandbox-ids.ts';
import { CHAT_USAGE, createChatCommand } from './commands/chat.ts';
import { createMcpCommand, MCP_USAGE } from './commands/mcp.ts';
import { MCP_SERVERS_USAGE, mcpServersCommand } from './commands/mcp-servers.ts';
import { SERVE_USAGE, serveCommand } from './commands/serve.ts';
import { createToolCommand, TOOL_USAGE } from './commands/tool.ts';
import { USER_USAGE, userCommand } from './commands/user.ts';
import { WORKSPACE_USAGE, workspaceCommand } from './commands/workspace.ts';
import { type CliCommand, type CliIo, UsageError } from './usage-error.ts';
import { resolveUserSettingsSource } from './user-settings-source.ts';

const COMMANDS: Record<string, { run: CliCommand; usage: string }> = {
  tool: { run: createToolCommand(resolveUserSettingsSource), usage: TOOL_USAGE },
  serve: { run: serveCommand, usage: SERVE_USAGE },
  user: { run: userCommand, usage: USER_USAGE },
  workspace: { run: workspaceCommand, usage: WORKSPACE_USAGE },
  mcp: { run: createMcpCommand(), usage: MCP_USAGE },
  'mcp-servers': { run: mcpServersCommand, usage: MCP_SERVERS_USAGE },
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

/** A command's usage lines without their own `Usage:` heading, so a listing has one heading. */
function usageLines(usage: string): string {
  return usage.replace(/^Usage:\n/, '');
}

export const CLI_USAGE = `mango — tool calling for LLM chats

Usage:
${Object.values(COMMANDS)
  .map((command) => usageLines(command.usage))
  .join('\n')}
  mango --help | --version    this text | the version
  mango COMMAND --help        one command's usage`;

export const CLI_VERSION = `mango ${packageJson.version}`;

const HELP_FLAGS = new Set(['--help', '-h']);

/** Runs the CLI in-process and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || HELP_FLAGS.has(name) || name === 'help') {
    io.stdout(`${CLI_USAGE}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`${CLI_VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command && rest.some((argument) => HELP_FLAGS.has(argument))) {
    io.stdout(`Usage:\n${usageLines(command.usage)}\n`);
    return 0;
  }
  const removed = removedWorkspaceRootsMessage(io.env);
  if (removed !== undefined) {
    io.stderr(`mango: ${removed}\n`);
    return 2;
  }
  // Shell tools and stdio MCP servers this command runs take their users' uids from its database.
  const restoreSandboxIds = provideSandboxIds(cliSandboxIds(io));
  try {
    if (!command) throw new UsageError(`Unknown command "${name}"`);
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof WorkspacesDirectoryError || error instanceof DataDirectoryError) {
      io.stderr(`mango: ${error.message}\n`);
      return 2;
    }
    // A workspace whose disk image cannot be used (or is being moved): the host's to fix, said once.
    if (error instanceof WorkspaceDiskError) {
      io.stderr(`mango: ${error.message}\n`);
      return 1;
    }
    // parseArgs reports unknown flags with ERR_PARSE_ARGS_* codes: those are usage mistakes too.
    const code = (error as { code?: unknown }).code;
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr(`mango: ${usageMessage(error as Error, command ? name : undefined)}\n`);
      return 2;
    }
    throw error;
  } finally {
    restoreSandboxIds();
  }
}

/** One line: the mistake, then where the usage is (`mango tool --help`). */
export function usageMessage(error: Error, commandName: string | undefined): string {
  const message = firstLine(error.message).replace(/[.\s]*$/, '');
  return `${message}. See "mango${commandName ? ` ${commandName}` : ''} --help".`;
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

if (import.meta.main) {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    env: processEnvironment(),
  };
  try {
    process.exitCode = await runCli(process.argv.slice(2), io);
  } catch (error) {
    // A fault no command turned into a message: one line for the person at the terminal.
    io.stderr(`mango: ${firstLine((error as Error)?.message ?? String(error))}\n`);
    process.exitCode = 1;
  }
}
