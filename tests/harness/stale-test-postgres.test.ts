/**
 * Cleanup after dead test runs (`removeStaleTestPostgres`), in a temp root of this test's own: a real
 * cluster whose run was killed is stopped and removed; what a live run owns, what has no owner file, and
 * a live process that is not that cluster's postmaster are left alone.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { identifyProcess, isProcessAlive } from '../helpers/process-identity.ts';
import { removeStaleTestPostgres } from '../helpers/stale-test-postgres.ts';
import { CLUSTER_DIRECTORY_PREFIX, DATA_DIRECTORY, OWNER_FILE } from '../helpers/throwaway-postgres.ts';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'mango-stale-pg-'));
  // The postgres uid (when we run as root) passes through it to its cluster's data dir.
  await chmod(root, 0o711);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A cluster dir under `root` with the given owner and, if given, a postmaster pid file. */
async function fakeCluster(name: string, owner: object | undefined, postmasterPid?: number): Promise<string> {
  const directory = join(root, `${CLUSTER_DIRECTORY_PREFIX}${name}`);
  await mkdir(join(directory, DATA_DIRECTORY), { recursive: true });
  if (owner) await writeFile(join(directory, OWNER_FILE), JSON.stringify(owner));
  if (postmasterPid !== undefined) {
    const dataDirectory = join(directory, DATA_DIRECTORY);
    await writeFile(join(dataDirectory, 'postmaster.pid'), `${postmasterPid}\n${dataDirectory}\n`);
  }
  return directory;
}

/** This process's pid with another start time: a process that had our pid once and is gone. */
function deadOwner() {
  const self = identifyProcess(process.pid);
  if (self.startTime === undefined) throw new Error('this test needs /proc to name a dead process');
  return { pid: self.pid, startTime: self.startTime - 1 };
}

describe('removeStaleTestPostgres', () => {
  test('stops and removes the cluster of a run that was killed', async () => {
    const run = Bun.spawn([process.execPath, join(import.meta.dir, '__fixtures__', 'cluster-then-hang.ts')], {
      env: { ...process.env, TMPDIR: root },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    const reader = run.stdout.getReader();
    let output = '';
    while (!output.includes('\n')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the run exited before its cluster was up: ${output}`);
      output += new TextDecoder().decode(value);
    }
    const url = output.trim();
    run.kill('SIGKILL');
    await run.exited;
    const [entry] = await readdir(root);
    const directory = join(root, entry ?? '');
    const postmasterPid = Number(
      (await Bun.file(join(directory, DATA_DIRECTORY, 'postmaster.pid')).text()).split('\n')[0],
    );
    const postmaster = identifyProcess(postmasterPid);
    // The killed run's cluster outlives it and still answers.
    const before = new SQL(url, { max: 1 });
    expect(await before`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    await before.close();

    expect(await removeStaleTestPostgres(root)).toEqual([directory]);
    expect(existsSync(directory)).toBe(false);
    expect(isProcessAlive(postmaster)).toBe(false);
  }, 60_000);

  test('leaves a live run’s cluster and a dir without an owner file', async () => {
    const live = await fakeCluster('live', identifyProcess(process.pid));
    const unowned = await fakeCluster('unowned', undefined);
    expect(await removeStaleTestPostgres(root)).toEqual([]);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unowned)).toBe(true);
    await rm(live, { recursive: true });
    await rm(unowned, { recursive: true });
  });

  test('removes a dead run’s dir but spares a live process that is not its postmaster', async () => {
    // A program that took the pid a dead postmaster had: it runs with no `-D` of that data dir.
    const bystander = Bun.spawn(['sleep', '600'], { stdout: 'ignore', stderr: 'ignore' });
    try {
      const directory = await fakeCluster('reused-pid', deadOwner(), bystander.pid);
      expect(await removeStaleTestPostgres(root)).toEqual([directory]);
      expect(existsSync(directory)).toBe(false);
      expect(isProcessAlive(identifyProcess(bystander.pid))).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
      await bystander.exited;
    }
  });
});
