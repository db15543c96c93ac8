/**
 * Proof that the instances of one database see the same files. Images live in the data directory and
 * workspaces in the workspaces directory; an instance with its own copy of either would answer 404 for
 * another's image, or run a turn without the files a tool wrote on another instance. So at start each
 * instance:
 *
 * 1. writes a marker `instances/<marker>` into the data directory and `.instances/<marker>` into the
 *    workspaces directory (0600, in 0700 directories);
 * 2. registers itself in `server_instances` (after its markers, so an instance starting at the same
 *    moment that sees the row also finds the markers);
 * 3. removes the rows of instances whose heartbeat is older than `staleMilliseconds` (and their
 *    markers), then looks for every other live instance's markers in its own two directories: one
 *    missing refuses the start with a `ConfigError` naming the variable of that directory, the path,
 *    and the instance (host, pid) that wrote into another one.
 *
 * While it runs it renews its heartbeat every `heartbeatMilliseconds`; `stop()` removes its row and
 * markers. On SQLite (one host, one data directory by construction) the same check passes trivially.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.ts';
import type { DatabaseInstanceRepository, InstanceRecord } from '../db/database-instance-repository.ts';

export interface SharedDirectoriesInput {
  repository: DatabaseInstanceRepository;
  instanceId: string;
  dataDirectory: string;
  workspacesDirectory: string;
  now: () => number;
  heartbeatMilliseconds?: number;
  staleMilliseconds?: number;
  log?: (line: string) => void;
}

export interface RegisteredInstance {
  /** The other live instances found, each with both markers. */
  others: InstanceRecord[];
  stop(): Promise<void>;
}

const DEFAULT_HEARTBEAT_MILLISECONDS = 10_000;
const DEFAULT_STALE_MILLISECONDS = 30_000;

function markerDirectories(input: SharedDirectoriesInput): { variable: string; directory: string }[] {
  return [
    { variable: 'MANGO_DATA_DIR', directory: join(input.dataDirectory, 'instances') },
    { variable: 'MANGO_WORKSPACES_DIR', directory: join(input.workspacesDirectory, '.instances') },
  ];
}

function removeMarker(directory: string, marker: string): void {
  rmSync(join(directory, marker), { force: true });
}

export async function registerInstance(input: SharedDirectoriesInput): Promise<RegisteredInstance> {
  const { repository } = input;
  const heartbeatMs = input.heartbeatMilliseconds ?? DEFAULT_HEARTBEAT_MILLISECONDS;
  const staleMs = input.staleMilliseconds ?? DEFAULT_STALE_MILLISECONDS;
  const marker = `${input.instanceId}.marker`;
  const directories = markerDirectories(input);
  const now = new Date(input.now()).toISOString();
  const self: InstanceRecord = {
    id: input.instanceId,
    host: hostname(),
    pid: process.pid,
    startedAt: now,
    heartbeatAt: now,
    marker,
  };
  for (const { directory } of directories) {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    writeFileSync(join(directory, marker), `${JSON.stringify(self)}\n`, { mode: 0o600, flag: 'wx' });
  }
  const removeOwnMarkers = () => {
    for (const { directory } of directories) removeMarker(directory, marker);
  };
  let registered = false;
  try {
    await repository.register(self);
    registered = true;
    const stale = await repository.removeStale(new Date(input.now() - staleMs).toISOString());
    for (const record of stale)
      for (const { directory } of directories) removeMarker(directory, record.marker);
    const others = (await repository.list()).filter((record) => record.id !== input.instanceId);
    for (const { variable, directory } of directories) {
      const present = new Set(readdirSync(directory));
      const missing = others.find((record) => !present.has(record.marker));
      if (missing !== undefined) {
        throw new ConfigError(
          `${variable} is not shared with the other instances of this database: ${directory} lacks the marker of the instance on ${missing.host} (pid ${missing.pid}, started ${missing.startedAt}). Every instance must see the same data and workspaces directories (a shared filesystem; docs/operating.md, "Several instances").`,
          variable,
        );
      }
    }
    const timer = setInterval(() => {
      repository.heartbeat(input.instanceId, new Date(input.now()).toISOString()).then(
        (alive) => {
          // Judged dead by a start that saw no heartbeat for too long: register again.
          if (!alive)
            return repository.register({ ...self, heartbeatAt: new Date(input.now()).toISOString() });
        },
        (error: unknown) =>
          input.log?.(
            `Renewing this instance's heartbeat failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
    }, heartbeatMs);
    let stopped: Promise<void> | undefined;
    return {
      others,
      stop: () => {
        stopped ??= (async () => {
          clearInterval(timer);
          await repository.remove(input.instanceId).catch(() => {});
          removeOwnMarkers();
        })();
        return stopped;
      },
    };
  } catch (error) {
    if (registered) await repository.remove(input.instanceId).catch(() => {});
    removeOwnMarkers();
    throw error;
  }
}
