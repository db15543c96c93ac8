/**
 * FIFOs, sockets and character devices on the request path: grep skips them (in the calling thread and in
 * workers) without blocking anything, read_file refuses them, write_file and edit_file refuse to replace
 * them. A FIFO with no writer would block a plain `open(O_RDONLY)` forever; every open here must return.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { compileGrepPattern } from '../../../src/tools/fs/grep/compile-grep-pattern.ts';
import type { GrepOptions } from '../../../src/tools/fs/grep/grep-options.ts';
import { runGrepSearch } from '../../../src/tools/fs/grep/run-grep-search.ts';
import { searchFileSync } from '../../../src/tools/fs/grep/search-file.ts';
import { createTextSearcher } from '../../../src/tools/fs/grep/text-searcher.ts';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import type { FileWork } from '../../helpers/test-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-special-');
const tree = join(temp.path, 'tree');
const isRoot = process.getuid?.() === 0;
const grepOptions: GrepOptions = {
  spec: compileGrepPattern('needle', false),
  dot: false,
  maxResults: 10,
  maxMatchesPerFile: 10,
  maxFileSizeBytes: 1 << 20,
};
let socketServer: Server | undefined;

beforeAll(async () => {
  mkdirSync(join(tree, 'nested'), { recursive: true });
  writeFileSync(join(tree, 'a.txt'), 'needle one\n');
  writeFileSync(join(tree, 'nested', 'b.txt'), 'needle two\n');
  expect(Bun.spawnSync(['mkfifo', join(tree, 'fifo')]).exitCode).toBe(0);
  expect(Bun.spawnSync(['mkfifo', join(tree, 'nested', 'fifo.txt')]).exitCode).toBe(0);
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer!.listen(join(tree, 'socket'), resolve));
  if (isRoot) {
    // Major 1, minor 5 is /dev/zero: a read never ends, so only a refusal before reading passes.
    expect(Bun.spawnSync(['mknod', join(tree, 'zero'), 'c', '1', '5']).exitCode).toBe(0);
  }
});
afterAll(async () => {
  await new Promise<void>((resolve) => (socketServer ? socketServer.close(() => resolve()) : resolve()));
  temp.remove();
});

const chat = (fileWork: FileWork = 'in-process') =>
  createChat({ workingDirectory: tree, homeDirectory: tree, confined: true, fileWork });
const specialNames = () => ['fifo', 'nested/fifo.txt', 'socket', ...(isRoot ? ['zero'] : [])];

describe('grep', () => {
  test('skips every special file while a concurrent request to a loopback server completes', async () => {
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('pong') });
    try {
      // The JavaScript engine forces the worker pool; the default engine searches in the calling thread.
      const searches = [
        chat().call('grep', { pattern: 'needle', path: '.' }),
        chat().call('grep', { pattern: '(?<=nee)dle', path: '.' }),
        chat().call('grep', { pattern: 'needle', path: '.', glob: '*.txt' }),
      ];
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      expect(await response.text()).toBe('pong');
      const outcomes = await Promise.all(searches);
      for (const outcome of outcomes) {
        const result = expectOk(outcome);
        expect(result.matches).toEqual([
          { file: 'a.txt', line: 1, text: 'needle one' },
          { file: 'nested/b.txt', line: 1, text: 'needle two' },
        ]);
        expect(result.filesScanned).toBe(2);
        expect(result.notice).toBeUndefined();
      }
    } finally {
      server.stop(true);
    }
  }, 5000);

  test.each([
    ['the calling thread', 0],
    ['a worker', 1],
  ])(
    'a file swapped for a writer-less FIFO during the walk is skipped in %s',
    async (_where, workers) => {
      const swapTree = join(temp.path, `swap-${workers}`);
      mkdirSync(swapTree);
      for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(swapTree, name), 'needle\n');
      const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('pong') });
      try {
        const search = runGrepSearch(grepOptions, {
          root: swapTree,
          rootIsFile: false,
          signal: AbortSignal.timeout(4000),
          // The walk has seen a regular file; before it is opened, it becomes a FIFO nobody writes to.
          allows: (candidate) => {
            if (candidate.endsWith('/b.txt')) {
              rmSync(candidate);
              expect(Bun.spawnSync(['mkfifo', candidate]).exitCode).toBe(0);
            }
            return true;
          },
          workers,
        });
        const response = await fetch(`http://127.0.0.1:${server.port}/`);
        expect(await response.text()).toBe('pong');
        const result = await search;
        expect(result.files.map((file) => [file.file, file.status])).toEqual([
          [join(swapTree, 'a.txt'), 'searched'],
          [join(swapTree, 'c.txt'), 'searched'],
        ]);
        expect(result.filesScanned).toBe(2);
      } finally {
        server.stop(true);
      }
    },
    5000,
  );

  test.skipIf(!isRoot)('(root only: mknod) the character device exists for the search above', () => {
    expect(lstatSync(join(tree, 'zero')).isCharacterDevice()).toBe(true);
  });

  test('a special file handed to the searcher directly is skipped at once, in this thread and in a worker', async () => {
    const searcher = createTextSearcher(compileGrepPattern('needle', false));
    for (const name of specialNames()) {
      const outcome = searchFileSync(join(tree, name), searcher, {
        maxFileSizeBytes: 1 << 20,
        maxMatchesPerFile: 10,
      });
      expect([name, outcome.status]).toEqual([name, 'unreadable']);
    }
    for (const name of specialNames()) {
      const search = await runGrepSearch(grepOptions, {
        root: join(tree, name),
        rootIsFile: true,
        signal: AbortSignal.timeout(4000),
        allows: () => true,
        workers: 1,
      });
      expect([name, search.files.map((file) => file.status)]).toEqual([name, ['unreadable']]);
    }
  }, 5000);

  test('a special file named as the path is refused with a clear error', async () => {
    for (const name of specialNames()) {
      expect(expectFailure(await chat().call('grep', { pattern: 'x', path: name }))).toEqual({
        classification: 'execution_error',
        message: `Cannot search ${JSON.stringify(name)}: it is neither a file nor a directory.`,
      });
    }
  }, 5000);
});

describeFileWork('read_file, write_file, edit_file', (fileWork) => {
  beforeAll(() => shareWithSandboxUser(tree, fileWork));

  test('read_file refuses every special file in every view, without blocking', async () => {
    for (const name of ['fifo', ...(isRoot ? ['zero'] : [])]) {
      for (const view of ['text', 'hex', 'base64']) {
        // The worker's mounts are nodev: the kernel refuses to open a device there before it is seen.
        const refusal =
          fileWork === 'worker' && name === 'zero'
            ? {
                classification: 'permission_denied',
                message: 'Cannot read "zero": the operating system denied access (EACCES).',
              }
            : {
                classification: 'execution_error',
                message: `Cannot read ${JSON.stringify(name)}: it is not a regular file.`,
              };
        expect(expectFailure(await chat(fileWork).call('read_file', { path: name, view }))).toEqual(refusal);
      }
    }
    // A socket cannot be opened at all: the operating system's answer is reported as such.
    const socket = expectFailure(await chat(fileWork).call('read_file', { path: 'socket' }));
    expect(socket.classification).toBe('execution_error');
    expect(socket.message).toStartWith('Cannot read "socket": ');
  }, 5000);

  test('write_file and edit_file refuse to replace a special file, which stays what it was', async () => {
    for (const name of specialNames()) {
      const message = `Refusing to write ${JSON.stringify(name)}: it is not a regular file.`;
      expect(expectFailure(await chat(fileWork).call('write_file', { path: name, content: 'x' }))).toEqual({
        classification: 'execution_error',
        message,
      });
      expect(
        expectFailure(await chat(fileWork).call('edit_file', { path: name, oldString: 'a', newString: 'b' })),
      ).toEqual({ classification: 'execution_error', message });
    }
    expect(lstatSync(join(tree, 'fifo')).isFIFO()).toBe(true);
    expect(lstatSync(join(tree, 'socket')).isSocket()).toBe(true);
  }, 5000);
});
