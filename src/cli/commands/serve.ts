/**
 * `mango serve`: runs the API (configuration from the environment, see `src/config.ts`) until SIGINT or
 * SIGTERM, then shuts down gracefully. Once listening it prints the web app's URL and which providers
 * are configured (`startup-summary.ts`). SIGHUP re-reads the external MCP servers file
 * (`MANGO_MCP_SERVERS`); a file that no longer parses keeps the servers in force and says why.
 */
import { startServer } from '../../server/start-server.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { startupSummary } from '../startup-summary.ts';
import { type CliCommand, UsageError } from '../usage-error.ts';

export const SERVE_USAGE = `  mango serve                 (HOST, PORT, MANGO_DATA_DIR, DATABASE_URL from the environment)`;

export const serveCommand: CliCommand = async (argv, io) => {
  if (argv.length > 0) throw new UsageError(`mango serve takes no arguments, got ${argv.join(' ')}.`);
  const config = loadCliConfig(io);
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { print: (line) => io.stdout(`${line}\n`), env: io.env });
  } catch (error) {
    io.stderr(`mango: the server could not start: ${(error as Error).message}\n`);
    return 1;
  }
  const summary = startupSummary({
    url: server.url,
    databaseLocation: server.database.location,
    webAppBuilt: server.deps.webApp !== undefined,
    providers: server.deps.providers.list(),
  });
  io.stdout(`${summary.join('\n')}\n`);
  const onHangUp = () => {
    const external = server.deps.externalTools;
    if (!external) {
      io.stdout('SIGHUP: no MANGO_MCP_SERVERS file to re-read.\n');
      return;
    }
    external.reload().then(
      (changed) =>
        io.stdout(
          `SIGHUP: re-read the MCP servers file; ${changed.length === 0 ? 'nothing changed' : `changed: ${changed.join(', ')}`}.\n`,
        ),
      (error: unknown) =>
        io.stderr(
          `SIGHUP: the MCP servers file was not applied, the servers stay as they were: ${(error as Error).message}\n`,
        ),
    );
  };
  process.on('SIGHUP', onHangUp);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      io.stdout(`${signal}: shutting down…\n`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onHangUp);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await server.stop();
  io.stdout('Stopped.\n');
  return 0;
};
