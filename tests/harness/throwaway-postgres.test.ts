/**
 * Stopping a throw-away cluster waits for its postmaster, not for a time: `stop()` returns once the
 * postmaster has exited, and a cluster whose postmaster died under it (a crash, a kill) is stopped and
 * disposed at once, since there is no exit left to wait for.
 */
import { afterAll, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { isProcessAlive } from '../helpers/process-identity.ts';
import {
  livePostmaster,
  startThrowawayPostgres,
  type ThrowawayPostgres,
} from '../helpers/throwaway-postgres.ts';
import { waitUntil } from '../helpers/wait-until.ts';

let cluster: ThrowawayPostgres | undefined;
afterAll(() => cluster?.dispose());

test('stop returns once the postmaster exited; a postmaster that died is not waited for', async () => {
  cluster = await startThrowawayPostgres();
  const first = await livePostmaster(cluster.dataDirectory);
  if (first === undefined) throw new Error('no postmaster runs for the started cluster');
  await cluster.stop();
  expect(isProcessAlive(first)).toBe(false);

  await cluster.start();
  const second = await livePostmaster(cluster.dataDirectory);
  if (second === undefined) throw new Error('no postmaster runs for the restarted cluster');
  expect(second.pid).not.toBe(first.pid);
  // The postmaster dies under the cluster: its exit event has come and gone before the stop.
  process.kill(second.pid, 'SIGKILL');
  expect(await waitUntil(() => !isProcessAlive(second), 15_000)).toBe(true);
  await cluster.stop();
  await cluster.dispose();
  expect(existsSync(cluster.dataDirectory)).toBe(false);
}, 60_000);
