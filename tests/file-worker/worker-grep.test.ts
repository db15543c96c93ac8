/**
 * grep through file workers in real bubblewrap sandboxes: the walk, the reads and the search run in
 * alice's worker (its threads included), as her uid; the server words the outcome and decides every
 * file it names again. Exact results for a literal, a regex, a glob, the caps, size, binary and policy
 * skips and a file path; the JavaScript engine stopped by the call's budget inside the worker; a reply
 * naming a file the server's policy refuses fails the call.
 */
import { expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileWorkerProcess } from '../../src/file-worker/file-worker-process.ts';
import { FILE_WORKER_DIRECTORY } from '../../src/sandbox/file-worker-sandbox.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { expectFailure, expectOk } from '../helpers/call-tool.ts';
import { manualTimers } from '../helpers/manual-timers.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from '../sandbox/sandbox-host.ts';
import { descendantsOf } from './file-worker-server-process.ts';
import { useFileWorkers, workerChat } from './file-worker-test-host.ts';

/** How many threads the worker's own Bun process runs (grep's threads among them). */
function threadsOf(worker: FileWorkerProcess): number {
  const bun = descendantsOf(worker.pid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith(`${FILE_WORKER_DIRECTORY}/bun\0`);
    } catch {
      return false;
    }
  });
  return bun === undefined ? 0 : readdirSync(`/proc/${bun}/task`).length;
}

describeSandbox('grep through the worker', () => {
  const host = useTestSandbox();
  const workers = useFileWorkers(() => host.sandbox);
  const tree = () => join(host.layout.alice, 'tree');
  let made = false;
  const chat = (parameters?: Record<string, unknown>) => {
    if (!made) {
      made = true;
      for (const directory of ['src/deep', 'docs', 'secret'])
        mkdirSync(join(tree(), directory), { recursive: true });
      writeFileSync(join(tree(), 'src/a.ts'), 'const needle = 1;\nother line\nNEEDLE upper\n');
      writeFileSync(join(tree(), 'src/deep/b.ts'), 'x\nneedle in deep\r\n');
      writeFileSync(join(tree(), 'src/c.js'), 'needle in js\nneedle again\n');
      writeFileSync(join(tree(), 'docs/readme.md'), 'no match here\n');
      writeFileSync(join(tree(), 'secret/key.ts'), 'needle secret\n');
      writeFileSync(join(tree(), 'big.txt'), `needle ${'z'.repeat(100)}\n`);
      writeFileSync(join(tree(), 'binary.bin'), Buffer.concat([Buffer.from('needle'), Buffer.from([0])]));
      writeFileSync(
        join(tree(), 'redos.txt'),
        `${Array.from({ length: 40 }, () => `${'a'.repeat(40)}!`).join('\n')}\n`,
      );
    }
    return workerChat('alice', () => host.layout.reachable, parameters);
  };

  test('a literal in a directory: every match, in walk order, paths relative to the working directory', async () => {
    expect(expectOk(await chat().call('grep', { pattern: 'needle', path: 'tree' }))).toEqual({
      pattern: 'needle',
      path: 'tree',
      matches: [
        { file: 'tree/big.txt', line: 1, text: `needle ${'z'.repeat(100)}` },
        { file: 'tree/secret/key.ts', line: 1, text: 'needle secret' },
        { file: 'tree/src/a.ts', line: 1, text: 'const needle = 1;' },
        { file: 'tree/src/c.js', line: 1, text: 'needle in js' },
        { file: 'tree/src/c.js', line: 2, text: 'needle again' },
        { file: 'tree/src/deep/b.ts', line: 2, text: 'needle in deep' },
      ],
      filesScanned: 7,
      truncated: false,
    });
    expect(workers.pool.workers().size).toBe(1);
  });

  test('a regex, case-insensitive, with a glob filter at any depth', async () => {
    expect(
      expectOk(
        await chat().call('grep', {
          pattern: 'ne+dle\\b',
          path: 'tree',
          glob: '*.ts',
          caseInsensitive: true,
        }),
      ),
    ).toEqual({
      pattern: 'ne+dle\\b',
      path: 'tree',
      matches: [
        { file: 'tree/secret/key.ts', line: 1, text: 'needle secret' },
        { file: 'tree/src/a.ts', line: 1, text: 'const needle = 1;' },
        { file: 'tree/src/a.ts', line: 3, text: 'NEEDLE upper' },
        { file: 'tree/src/deep/b.ts', line: 2, text: 'needle in deep' },
      ],
      filesScanned: 3,
      truncated: false,
    });
  });

  test('maxResults cuts the result, and files over maxFileSizeBytes are skipped and named', async () => {
    expect(
      expectOk(
        await chat({ maxResults: 2, maxFileSizeBytes: 50 }).call('grep', { pattern: 'needle', path: 'tree' }),
      ),
    ).toEqual({
      pattern: 'needle',
      path: 'tree',
      matches: [
        { file: 'tree/secret/key.ts', line: 1, text: 'needle secret' },
        { file: 'tree/src/a.ts', line: 1, text: 'const needle = 1;' },
      ],
      // docs/readme.md, the two files that matched, and src/c.js, whose match proved the cut.
      filesScanned: 4,
      truncated: true,
      notice:
        '[cut: stopped at maxResults (2) matches; narrow the pattern, the path or the glob to see the rest] Skipped 2 files larger than maxFileSizeBytes (50 bytes): tree/big.txt, tree/redos.txt.',
    });
  });

  test('a file path: a binary file is named, not searched; a text file is searched alone', async () => {
    expect(expectOk(await chat().call('grep', { pattern: 'needle', path: 'tree/binary.bin' }))).toEqual({
      pattern: 'needle',
      path: 'tree/binary.bin',
      matches: [],
      filesScanned: 0,
      truncated: false,
      notice:
        'tree/binary.bin is binary (a NUL byte in its first 8 KiB) and was not searched; read it with read_file view "hex".',
    });
    expect(expectOk(await chat().call('grep', { pattern: 'again', path: 'tree/src/c.js' }))).toEqual({
      pattern: 'again',
      path: 'tree/src/c.js',
      matches: [{ file: 'tree/src/c.js', line: 2, text: 'needle again' }],
      filesScanned: 1,
      truncated: false,
    });
  });

  test('a denied path is left out of the walk and counted; a search of it is refused', async () => {
    const denied = chat({ deniedPaths: [{ path: '~/tree/secret', enabled: true }] });
    const result = expectOk(await denied.call('grep', { pattern: 'secret', path: 'tree' }));
    expect(result).toEqual({
      pattern: 'secret',
      path: 'tree',
      matches: [],
      filesScanned: 6,
      truncated: false,
      notice:
        '1 file was not searched because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.',
    });
    expect(expectFailure(await denied.call('grep', { pattern: 'x', path: 'tree/secret' }))).toMatchObject({
      classification: 'permission_denied',
    });
    // The read-only grant is searched; the protected data directory inside it is not walked at all.
    expect(
      expectOk(await chat().call('grep', { pattern: 'secret|readme', path: host.layout.projects })),
    ).toEqual({
      pattern: 'secret|readme',
      path: host.layout.projects,
      matches: [{ file: join(host.layout.projects, 'readme.txt'), line: 1, text: 'shared project readme' }],
      filesScanned: 1,
      truncated: false,
    });
  });

  test("the JavaScript engine is stopped in the worker by the call's budget; the worker serves on", async () => {
    expectOk(await chat().call('grep', { pattern: 'again', path: 'tree/src/c.js' }));
    const worker = await workers.pool.acquire('alice', host.layout.reachable);
    const { timers, pending, fireAll } = manualTimers();
    const grep = executeTool(
      'grep',
      { pattern: '(a+)+b(?=c)', path: 'tree/redos.txt' },
      { userId: 'alice', chatId: 'chat-1', reachable: host.layout.reachable },
      undefined,
      { timers },
    );
    expect(await waitUntil(() => pending.length === 1, 5_000)).toBe(true);
    // The call reached the worker (without a cancel, its threads would backtrack for ages).
    expect(await waitUntil(() => worker.busy === 1, 5_000)).toBe(true);
    expect(threadsOf(worker)).toBeGreaterThan(1);
    fireAll();
    expect(expectFailure(await grep).classification).toBe('timeout');
    // The worker stopped that call's work and answered it (the answer is dropped): nothing in flight.
    expect(await waitUntil(() => worker.busy === 0, 5_000)).toBe(true);
    expect(worker.alive).toBe(true);
    expect(expectOk(await chat().call('grep', { pattern: 'again', path: 'tree/src/c.js' })).matches).toEqual([
      { file: 'tree/src/c.js', line: 2, text: 'needle again' },
    ]);
    expect(await workers.pool.acquire('alice', host.layout.reachable)).toBe(worker);
  }, 20_000);

  test("a reply naming a file the server's policy refuses fails the call (the second wall)", async () => {
    const denied = chat({ deniedPaths: [{ path: '~/tree/secret', enabled: true }] });
    expectOk(await denied.call('grep', { pattern: 'needle', path: 'tree' }));
    const worker = await workers.pool.acquire('alice', host.layout.reachable);
    const original = worker.call.bind(worker);
    const secret = join(tree(), 'secret', 'key.ts');
    worker.call = async (...args) => {
      const reply = await original(...args);
      if (args[0] !== 'grepFiles') return reply;
      const result = reply.result as { files: { file: string }[] };
      return { ...reply, result: { ...result, files: [{ ...result.files[0], file: secret }] } };
    };
    try {
      expect(expectFailure(await denied.call('grep', { pattern: 'needle', path: 'tree' }))).toEqual({
        classification: 'permission_denied',
        message: `Access to "${secret}" is denied: it is inside the denied path "~/tree/secret" (deniedPaths setting).`,
      });
    } finally {
      worker.call = original;
    }
  });
});
