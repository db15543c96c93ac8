/**
 * A file worker dies with its server: `kill -9` of the process that started it (no exit handler runs)
 * leaves nothing of the worker's sandbox alive, by bubblewrap's parent-death signal and the pipe that
 * closes with the server.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { FILE_WORKER_RUNTIME } from '../../src/sandbox/file-worker-sandbox.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';
import { descendantsOf, isLive, startServerProcess } from './file-worker-server-process.ts';

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

describeSandbox('file worker lifetime', () => {
  test('kill -9 of the server leaves no process of its worker alive', async () => {
    const server = startServerProcess('worker');
    try {
      const ready = await server.ready();
      expect(ready).toMatchObject({ ready: true, workers: 1 });
      const worker = descendantsOf(ready.pid);
      const bun = worker.filter((pid) => commandLineOf(pid).startsWith(`${FILE_WORKER_RUNTIME}\0`));
      expect(bun.length).toBe(1);
      server.child.kill('SIGKILL');
      await server.child.exited;
      expect(await waitUntil(() => worker.every((pid) => !isLive(pid)), 5000)).toBe(true);
    } finally {
      server.cleanUp();
    }
  }, 30_000);
});
