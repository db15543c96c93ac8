/**
 * A file worker that is gone before the server could greet it (bubblewrap refused a mount, say): the
 * start fails with a classified error, and nothing is left to reject unhandled once its exit is seen.
 */
import { expect, test } from 'bun:test';
import { FileWorkerProcess } from '../../src/file-worker/file-worker-process.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

test('a worker gone before its init fails the start clearly, and no rejection goes unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    // A real process that has ended, whose stdin refuses the init at once, as a closed pipe does.
    const ended = Bun.spawn(['sh', '-c', 'exit 1'], {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    await ended.exited;
    const stdin = {
      write: () => {
        throw Object.assign(new Error('EPIPE: broken pipe, write'), { code: 'EPIPE' });
      },
      flush: () => undefined,
    };
    const child = new Proxy(ended, {
      get: (target, property) => {
        if (property === 'stdin') return stdin;
        const value = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const launch = { argv: ['sh'], environment: {}, cwd: '/', start: async () => child };
    const failure = await FileWorkerProcess.start({
      launch,
      userId: 'alice',
      reachable: makeReachableSet(),
      log: () => {},
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ classification: 'execution_error' });
    expect((failure as Error).message).toBe(
      // Gone before its init could be written: told by how it ended, as a worker that ended after it.
      'The file worker for this call could not start: exit status 1.',
    );
    // A turn of the event loop: an unhandled rejection is reported once the microtasks have run.
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
