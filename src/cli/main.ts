/**
 * The `mango` command line. Each command lives in `commands/`; this file only dispatches and turns
 * usage mistakes into exit code 2.
 */
import '../tools/builtin/index.ts';
import { SERVE_USAGE, serveCommand } from './commands/serve.ts';
import { createToolCommand, TOOL_USAGE } from './commands/tool.ts';
import { USER_USAGE, userCommand } from './commands/user.ts';
import { type CliCommand, type CliIo, UsageError } from './usage-error.ts';
import { resolveUserSettingsSource } from './user-settings-source.ts';

const COMMANDS: Record<string, { run: CliCommand; usage: string }> = {
  tool: { run: createToolCommand(resolveUserSettingsSource), usage: TOOL_USAGE },
  serve: { run: serveCommand, usage: `Usage:\n${SERVE_USAGE}` },
  user: { run: userCommand, usage: `Usage:\n${USER_USAGE}` },
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
  try {
    if (!command) throw new UsageError(`Unknown command "${name}".`);
    return await command.run(rest, io);
  } catch (error) {
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
