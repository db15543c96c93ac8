/**
 * Cleanup after test runs that died without stopping their PostgreSQL cluster (a crash, SIGKILL, a
 * machine reset): their temp dirs stay behind, and their postmaster may still run. A dir is removed only
 * when it proves to be ours and abandoned: it has the prefix and owner file `throwaway-postgres.ts`
 * writes, and the process named there is gone. Its postmaster is stopped only when the pid in the data
 * dir's `postmaster.pid` is a live process whose command line names that very data dir; any other
 * process with that pid is someone else's and is left alone.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive, type ProcessIdentity } from './process-identity.ts';
import {
  CLUSTER_DIRECTORY_PREFIX,
  DATA_DIRECTORY,
  livePostmaster,
  OWNER_FILE,
} from './throwaway-postgres.ts';
import { waitUntil } from './wait-until.ts';

/** A fast shutdown of an idle cluster takes well under a second; past this the postmaster is killed. */
const SHUTDOWN_TIMEOUT_MS = 10_000;

async function readOwner(directory: string): Promise<ProcessIdentity | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(join(directory, OWNER_FILE), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || !('pid' in parsed)) return undefined;
    const { pid, startTime } = parsed as { pid: unknown; startTime?: unknown };
    if (typeof pid !== 'number') return undefined;
    return typeof startTime === 'number' ? { pid, startTime } : { pid };
  } catch {
    return undefined;
  }
}

const whenGone = (identity: ProcessIdentity, timeoutMs: number) =>
  waitUntil(() => !isProcessAlive(identity), timeoutMs);

async function stopPostmaster(postmaster: ProcessIdentity): Promise<void> {
  // SIGINT is PostgreSQL's fast shutdown: it ends the backends and removes its shared memory.
  process.kill(postmaster.pid, 'SIGINT');
  if (await whenGone(postmaster, SHUTDOWN_TIMEOUT_MS)) return;
  process.kill(postmaster.pid, 'SIGKILL');
  await whenGone(postmaster, SHUTDOWN_TIMEOUT_MS);
}

/**
 * Removes the abandoned clusters under `root` (default `os.tmpdir()`), stopping their postmasters first;
 * returns the dirs it removed.
 */
export async function removeStaleTestPostgres(root: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(root).catch(() => [] as string[])) {
    if (!entry.startsWith(CLUSTER_DIRECTORY_PREFIX)) continue;
    const directory = join(root, entry);
    const owner = await readOwner(directory);
    if (owner === undefined || isProcessAlive(owner)) continue;
    const postmaster = await livePostmaster(join(directory, DATA_DIRECTORY));
    if (postmaster !== undefined) await stopPostmaster(postmaster).catch(() => {});
    await rm(directory, { recursive: true, force: true });
    removed.push(directory);
  }
  return removed;
}
