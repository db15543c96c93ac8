/**
 * `mango mcp --user NAME [--cwd DIR] [--unrestricted]`: serves one user's enabled tools over MCP on
 * stdio (docs/mcp.md), for MCP clients that start their servers as a subprocess. The session is bound
 * like a chat: `--cwd` inside the user's workspaces (default: the personal workspace), confined to it
 * unless `--unrestricted` and the user is allowed it, checked again before every call.
 *
 * stdout carries protocol messages and nothing else: diagnostics go to stderr, and `console.log`
 * (and its siblings) are pointed at stderr while the command runs, so a stray log in a tool cannot
 * corrupt the stream. The session ends when stdin closes or on SIGINT/SIGTERM; closing aborts a
 * running call (shells are killed through its signal) before the process exits.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { readVariable } from '../../config/environment-variables.ts';
import {
  configureImageGeneration,
  readImageGenerationConfigFromEnv,
} from '../../images/image-generation-config.ts';
import { createMcpToolServer } from '../../mcp/mcp-tool-server.ts';
import { UserCallSlots } from '../../tools/user-call-slots.ts';
import { type BoundWorkingDirectory, bindWorkingDirectory } from '../../workspaces/bind-working-directory.ts';
import { WorkspaceError } from '../../workspaces/workspace-error.ts';
import { type OpenCliDependencies, openCliDependencies } from '../cli-dependencies.ts';
import { withCliFileWorkers } from '../cli-file-workers.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';

export const MCP_USAGE = `Usage:
  mango mcp --user NAME [--cwd DIR] [--unrestricted]   serve NAME's enabled tools over MCP on stdio
    --cwd: inside NAME's workspaces (default: NAME's personal workspace); the session is confined to it
    unless --unrestricted and NAME is allowed it (mango user set NAME --allow-unrestricted).`;

/**
 * How often a stdio session re-reads the user's tool list: settings changed through the API server
 * (another process) reach this one only through the database, so the poll is what sends list_changed.
 */
export const STDIO_SETTINGS_POLL_MILLISECONDS = 2_000;

export interface McpCommandStreams {
  stdin: Readable;
  stdout: Writable;
}

/** Points console.log/info/debug at stderr until the returned function restores them. */
function keepConsoleOffStdout(io: CliIo): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...values: unknown[]) =>
    io.stderr(
      `${values.map((value) => (typeof value === 'string' ? value : Bun.inspect(value))).join(' ')}\n`,
    );
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => Object.assign(console, saved);
}

/**
 * Builds the `mcp` command. `openDependencies` supplies users, settings and image records (the
 * configured database); `streams` default to the process's stdin and stdout.
 */
export function createMcpCommand(
  openDependencies: OpenCliDependencies = openCliDependencies,
  streams?: McpCommandStreams,
): CliCommand {
  return async (argv, io) => {
    const { values, positionals } = parseCommandLine(argv, {
      user: { type: 'string' },
      cwd: { type: 'string' },
      unrestricted: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}`);
    if (values.user === undefined || values.user === '') throw new UsageError('mango mcp needs --user NAME.');
    const cwd = values.cwd;
    const requestedCwd =
      cwd === undefined || cwd.startsWith('~') || isAbsolute(cwd) ? cwd : resolve(io.cwd, cwd);

    const callSlots = new UserCallSlots(readVariable(io.env, 'MANGO_USER_MAX_TOOL_CALLS'));
    const dependencies = await openDependencies(io.env, io.cwd);
    try {
      const user = await dependencies.users.findByName(values.user);
      if (!user) {
        io.stderr(`mango mcp: no user named "${values.user}" (create one with mango user add NAME).\n`);
        return 1;
      }
      let bound: BoundWorkingDirectory;
      try {
        bound = await bindWorkingDirectory(dependencies.workspaces, user.id, {
          cwd: requestedCwd,
          unrestricted: values.unrestricted ?? false,
        });
      } catch (error) {
        if (!WorkspaceError.isInstance(error)) throw error;
        io.stderr(`mango mcp: --cwd: ${error.message}\n`);
        return 1;
      }
      // generate_image: providers from this command's environment, records in the shared database.
      configureImageGeneration({
        ...readImageGenerationConfigFromEnv(io.env),
        repository: dependencies.images,
      });
      const restoreConsole = keepConsoleOffStdout(io);
      try {
        await withCliFileWorkers(io, 'mango mcp', values.user, () =>
          serveStdio(io, streams ?? { stdin: process.stdin, stdout: process.stdout }, (onClose) =>
            createMcpToolServer({
              toolSettings: dependencies.toolSettings,
              toolSettingsEvents: dependencies.toolSettingsEvents,
              dataDirectory: dependencies.dataDirectory,
              userId: user.id,
              resolveAccess: bound.resolveAccess,
              log: (message) => io.stderr(`[mango mcp] ${message}\n`),
              settingsPollMilliseconds: STDIO_SETTINGS_POLL_MILLISECONDS,
              // This process's own share: the server's slots are the server's (one count per process).
              executeOptions: { callSlots },
              onClose,
            }),
          ),
        );
        io.stderr(`mango mcp: session for ${user.name} ended.\n`);
        return 0;
      } finally {
        restoreConsole();
      }
    } finally {
      await dependencies.close();
    }
  };
}

/** Runs one stdio session until stdin ends or a termination signal arrives. */
async function serveStdio(
  io: CliIo,
  streams: McpCommandStreams,
  createServer: (onClose: () => void) => ReturnType<typeof createMcpToolServer>,
): Promise<void> {
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolvePromise) => {
    markClosed = resolvePromise;
  });
  const server = createServer(() => markClosed());
  const close = () => {
    server.close().catch((error: unknown) => io.stderr(`mango mcp: ${(error as Error).message}\n`));
  };
  streams.stdin.once('end', close);
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of signals) process.once(signal, close);
  try {
    await server.connect(new StdioServerTransport(streams.stdin, streams.stdout));
    io.stderr('mango mcp: serving over stdio.\n');
    await closed;
  } finally {
    streams.stdin.off('end', close);
    for (const signal of signals) process.off(signal, close);
  }
}
