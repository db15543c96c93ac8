/**
 * Start-up and graceful shutdown of the API server. `startServer(config)` makes the data directory the
 * server's own (mode 0700, narrowed on its descriptor when an older version left it wider; with either
 * database, since images are kept there too), opens the database, applies pending migrations,
 * creates the first user when there is none (printing its token once), points
 * generate_image at its providers (from the injected `env`) and at the database's image records, loads
 * the web app into memory (`loadWebApp`: served from those bytes only; a build that fails its hash
 * check stops the start), probes the shell sandbox (and prints what shell commands run in, or why shell
 * tools are unavailable; a root server also counts the workspaces still owned by the uid of earlier
 * versions), mounts the disk images of personal workspaces (and prints whether disk quotas are on, and
 * why not when they are unavailable), and listens. `stop()` closes the MCP sessions (their streams never end on their own), stops accepting
 * connections, cancels running chat turns (their tools stop, their history is kept, their streams end
 * with `done{cancelled}`), lets in-flight requests finish for at most `config.shutdownTimeoutMs`, then closes the
 * rest and the database.
 */
import { processEnvironment } from '../config/process-environment.ts';
import {
  ConfigError,
  DEFAULT_IDLE_TIMEOUT_SECONDS,
  maxUploadBytesOf,
  removedWorkspaceRootsMessage,
  type ServerConfig,
} from '../config.ts';
import { prepareDataDirectory } from '../db/data-directory.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { DatabaseInstanceRepository } from '../db/database-instance-repository.ts';
import { UserNameTakenError } from '../db/database-user-repository.ts';
import { migrate } from '../db/migrate.ts';
import { PostgresWakeUps } from '../db/postgres-wake-ups.ts';
import { createApp } from '../http/app.ts';
import { type AppDependencies, createAppDependencies } from '../http/app-dependencies.ts';
import {
  configureImageGeneration,
  readImageGenerationConfigFromEnv,
} from '../images/image-generation-config.ts';
import { type RegisteredInstance, registerInstance } from './shared-directories.ts';
import '../tools/builtin/register-builtin-tools.ts';
import { readVariable } from '../config/environment-variables.ts';
import { DatabaseSandboxIdRepository } from '../db/database-sandbox-id-repository.ts';
import { DatabaseSecretKeyProbeRepository } from '../db/database-secret-key-probe-repository.ts';
import type { FileLock } from '../descriptors/file-lock.ts';
import { type InstalledFileWorkers, installFileWorkers } from '../file-worker/install-file-workers.ts';
import { checkSecretKey } from '../mcp-client/secret-key-probe.ts';
import { installShellSandbox } from '../sandbox/host-shell-sandbox.ts';
import type { ShellSandbox } from '../sandbox/shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from '../sandbox/shell-sandbox-config.ts';
import { describeShellSandbox } from '../sandbox/shell-sandbox-notice.ts';
import { unmigratedWorkspacesNotice } from '../sandbox/unmigrated-roots.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { loadWebApp } from '../web/load-web-app.ts';
import { DEFAULT_WEB_OUTPUT_DIRECTORY } from '../web/web-build.ts';
import { describeDiskQuotas, mountWorkspaceDisks } from '../workspaces/start-workspace-disks.ts';

/** Name of the user created on a first start with an empty `users` table. */
export const FIRST_USER_NAME = 'admin';

export interface RunningServer {
  /** e.g. `http://127.0.0.1:3000` (the real port when `config.port` was 0). */
  url: string;
  port: number;
  database: Database;
  deps: AppDependencies;
  /** Stops accepting, waits (bounded) for in-flight requests, closes the database. Idempotent. */
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** Where start-up notices go (default: stdout). */
  print?: (line: string) => void;
  now?: () => number;
  /** Tools to serve (default: the process-wide registry with every builtin). */
  registry?: ToolRegistry;
  /**
   * The environment that model providers (`createProviderRegistry`), image providers
   * (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `GEMINI_API_KEY`/`GEMINI_BASE_URL`) and chat settings
   * (`MANGO_MAX_TOOL_ITERATIONS`) are read from; one that still sets `MANGO_WORKSPACE_ROOTS` is refused; `mango serve` passes its own.
   * Default: the process's.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Where shell commands run. Default: the sandbox `env` selects (`MANGO_SHELL_SANDBOX`), probed now;
   * shell tools are unavailable, with the reason, when it cannot run.
   */
  shellSandbox?: ShellSandbox;
}

/** Listens on the configured address; a request the app fails on gets a classified 500, never a trace. */
function listen(config: ServerConfig, app: ReturnType<typeof createApp>): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: config.host,
    port: config.port,
    // The upload cap may be the larger one. The app refuses a larger Content-Length on every other route,
    // and the JSON routes count the bytes they read (parseJsonBody).
    maxRequestBodySize: Math.max(config.maxRequestBodyBytes, maxUploadBytesOf(config)),
    idleTimeout: config.idleTimeoutSeconds ?? DEFAULT_IDLE_TIMEOUT_SECONDS,
    fetch: (request) => app.handle(request),
    error: () =>
      new Response(JSON.stringify({ error: 'Internal server error.', code: 'internal_error' }), {
        status: 500,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      }),
  });
}

/** What an operator should know before serving: workspaces still owned by the old uid, shared MCP servers. */
async function printServingNotices(
  deps: AppDependencies,
  config: ServerConfig,
  env: Readonly<Record<string, string | undefined>>,
  print: (line: string) => void,
): Promise<void> {
  const grants = (await deps.workspaces.listGrants()).map((grant) => grant.path);
  const unmigrated = unmigratedWorkspacesNotice(env, config.workspacesDirectory, grants);
  if (unmigrated !== undefined) print(unmigrated);
  const operatorServers = deps.externalTools?.servers.operatorServers() ?? [];
  if (operatorServers.length > 0) {
    print(
      `External MCP servers offered to every user: ${operatorServers.map((server) => server.name).join(', ')}.`,
    );
  }
}

/**
 * The graceful part of a stop: MCP sessions closed, no new connections, running turns cancelled and
 * in-flight requests given `timeoutMs` to finish before the rest are cut, then the turns' own ends
 * recorded and the external tools closed.
 */
async function drainAndStop(
  running: ReturnType<typeof Bun.serve>,
  deps: AppDependencies,
  timeoutMs: number,
): Promise<void> {
  await deps.mcpSessions.closeAll();
  const drained = running.stop(false);
  // A turn can run for minutes: cancel it so its stream ends (done{cancelled}) and drains.
  deps.chats.cancelAllTurns();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  if ((await Promise.race([drained.then(() => 'drained' as const), timedOut])) === 'timeout') {
    await running.stop(true);
  }
  clearTimeout(timer);
  // Turns outlive their streams: let them record their end before the database closes.
  await deps.chats.drainTurns(timeoutMs);
  // After the turns: their external calls end as cancelled, not as a closed connection.
  await deps.externalTools?.close();
}

/**
 * Creates the first user if the database has none, and prints its token once. Two instances starting
 * together on one PostgreSQL database cannot both create it: the name is unique, and the loser skips.
 */
export async function ensureFirstUser(deps: AppDependencies, print: (line: string) => void): Promise<void> {
  if ((await deps.users.count()) > 0) return;
  try {
    const { token } = await deps.users.create(FIRST_USER_NAME);
    print(
      [
        `Created the first user "${FIRST_USER_NAME}". Its API token is shown only this once:`,
        '',
        `    ${token}`,
        '',
        'Use it as "Authorization: Bearer <token>"; docs/operating.md, section "Users and tokens", shows how',
        '(and how to add users with `mango user add NAME`).',
      ].join('\n'),
    );
  } catch (error) {
    if (!(error instanceof UserNameTakenError)) throw error;
  }
}

export async function startServer(
  config: ServerConfig,
  options: StartServerOptions = {},
): Promise<RunningServer> {
  const print = options.print ?? ((line: string) => console.log(line));
  const environment = options.env ?? processEnvironment();
  const removed = removedWorkspaceRootsMessage(environment);
  if (removed !== undefined) throw new ConfigError(removed);
  prepareDataDirectory(config.dataDirectory);
  const database = await openDatabase(config);
  let server: ReturnType<typeof Bun.serve> | undefined;
  let uninstallSandbox: (() => void) | undefined;
  let fileWorkers: InstalledFileWorkers | undefined;
  let serverLock: FileLock | undefined;
  let wakeUps: PostgresWakeUps | undefined;
  let instance: RegisteredInstance | undefined;
  try {
    const webDirectory = config.webDirectory ?? DEFAULT_WEB_OUTPUT_DIRECTORY;
    const webApp = await loadWebApp(webDirectory);
    if (!webApp)
      print(`The web app is not built (${webDirectory}): pages answer 503 until \`npm run build\`.`);
    await migrate(database, undefined, options.now);
    print(
      await checkSecretKey({
        repository: new DatabaseSecretKeyProbeRepository(database),
        current: readVariable(environment, 'MANGO_SECRET_KEY'),
        previous: readVariable(environment, 'MANGO_SECRET_KEY_PREVIOUS'),
        now: options.now ?? Date.now,
      }),
    );
    // Installed before the dependencies: personal workspaces are created for the sandbox's uid.
    const shellSandbox =
      options.shellSandbox ??
      createShellSandboxFromEnvironment(environment, {
        ids: new DatabaseSandboxIdRepository(database),
      });
    uninstallSandbox = installShellSandbox(shellSandbox);
    print(describeShellSandbox(shellSandbox.status()));
    fileWorkers = installFileWorkers(shellSandbox);
    print(fileWorkers.summary);
    const instanceId = crypto.randomUUID();
    if (database.dialect === 'postgres') {
      wakeUps = await PostgresWakeUps.start(database, {
        instanceId,
        fallbackPollMilliseconds: readVariable(environment, 'MANGO_WAKE_UP_POLL_MS'),
        log: (line) => console.error(line),
      });
    }
    const deps = createAppDependencies({
      wakeUps,
      config,
      database,
      now: options.now,
      registry: options.registry,
      environment: options.env,
      webApp,
    });
    // After the dependencies, which made the workspaces directory as it must be.
    instance = await registerInstance({
      repository: new DatabaseInstanceRepository(database),
      instanceId,
      dataDirectory: config.dataDirectory,
      workspacesDirectory: config.workspacesDirectory,
      now: options.now ?? Date.now,
      log: (line) => console.error(line),
    });
    const disks = deps.workspaces.disks;
    if (disks !== undefined) {
      const summary = await mountWorkspaceDisks(disks);
      print(describeDiskQuotas(summary));
      // Held while serving: `mango workspace move-to-image` refuses to run meanwhile.
      if (summary.state === 'on' && summary.availability.available)
        serverLock = await disks.holdWhileServing();
    }
    await ensureFirstUser(deps, print);
    await printServingNotices(deps, config, environment, print);
    configureImageGeneration({
      ...readImageGenerationConfigFromEnv(environment),
      repository: deps.images,
    });
    const app = createApp(deps);
    server = listen(config, app);
    const running = server;
    const port = running.port ?? config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    let stopping: Promise<void> | undefined;
    return {
      url: `http://${host}:${port}`,
      port,
      database,
      deps,
      stop: () => {
        stopping ??= (async () => {
          await drainAndStop(running, deps, config.shutdownTimeoutMs);
          fileWorkers?.stop();
          uninstallSandbox?.();
          // Its sandboxes built ahead end with it; one the caller passed is the caller's.
          if (options.shellSandbox === undefined) shellSandbox.dispose?.();
          serverLock?.release();
          await wakeUps?.close();
          await instance?.stop();
          await database.close();
        })();
        return stopping;
      },
    };
  } catch (error) {
    server?.stop(true);
    fileWorkers?.stop();
    uninstallSandbox?.();
    serverLock?.release();
    await wakeUps?.close();
    await instance?.stop();
    await database.close(0);
    throw error;
  }
}
