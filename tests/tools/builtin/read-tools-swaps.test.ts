/**
 * The read-side tools under the swap fuzzer (tests/helpers/swap-fuzzer.ts): while the tenant exchanges
 * every directory and file of its workspace with symlinks to an outside sentinel tree, read_file,
 * list_directory, glob and grep return nothing of the sentinel and leave it untouched. Calls may fail
 * ("changed while the tool was using it", in the tools' own words, never a bare system error); none may
 * read, list or search outside.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChat, FILE_WORKER_TOOLS } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import {
  createSentinelTree,
  fuzzSwaps,
  RAW_SYSTEM_ERROR,
  type SentinelTree,
} from '../../helpers/swap-fuzzer.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('read tools under swaps', (fileWork) => {
  const temp = makeTempDirectory('mango-read-swaps-');
  const workspace = join(temp.path, 'ws');
  let sentinel: SentinelTree;

  /** Every directory and file of the workspace, parents before children. */
  const components = ['a.txt', 'inner', 'inner/b.txt', 'inner/deep', 'inner/deep/c.txt'];
  /** Each operation runs this many times (at least 300) or for SECONDS, whichever ends first. */
  const ITERATIONS = 2000;
  /** Four operations: within ~30 s of wall time even on a slow machine. */
  const SECONDS = 6;

  beforeAll(async () => {
    mkdirSync(join(workspace, 'inner', 'deep'), { recursive: true });
    writeFileSync(join(workspace, 'a.txt'), 'needle a\n');
    writeFileSync(join(workspace, 'inner', 'b.txt'), 'needle b\n');
    writeFileSync(join(workspace, 'inner', 'deep', 'c.txt'), 'needle c\n');
    await shareWithSandboxUser(workspace, fileWork);
    sentinel = createSentinelTree(join(temp.path, 'sentinel'), workspace);
  });
  afterAll(() => temp.remove());

  const chat = () =>
    createChat({ workingDirectory: workspace, homeDirectory: workspace, confined: true, fileWork });

  const operations: [string, (iteration: number) => [string, Record<string, unknown>]][] = [
    ['read_file', (i) => ['read_file', { path: ['inner/deep/c.txt', 'inner/b.txt', 'a.txt'][i % 3]! }]],
    ['list_directory', (i) => ['list_directory', { path: ['inner', 'inner/deep', '.'][i % 3]! }]],
    ['glob', (i) => ['glob', { pattern: ['**', 'inner/**/*.txt', 'inner/deep/*'][i % 3]! }]],
    ['grep', (i) => ['grep', { pattern: 'needle', path: ['.', 'inner', 'inner/deep/c.txt'][i % 3]! }]],
  ];

  // Through a worker, the tools whose file work runs there; the others are the in-process run's.
  const here =
    fileWork === 'worker' ? operations.filter(([name]) => FILE_WORKER_TOOLS.includes(name)) : operations;
  test.each(here)(
    '%s returns nothing of the sentinel and leaves it untouched',
    async (_name, call) => {
      const calls = chat();
      const unclear: string[] = [];
      const report = await fuzzSwaps({
        workspace,
        componentsToSwap: components,
        sentinel,
        operation: async (iteration) => {
          const outcome = await calls.call(...call(iteration));
          if (!outcome.ok && RAW_SYSTEM_ERROR.test(outcome.error.message))
            unclear.push(outcome.error.message);
          return outcome;
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      expect(report.leaks).toEqual([]);
      expect(report.sentinelAfter).toEqual(report.sentinelBefore);
      expect(report.iterations === ITERATIONS || report.elapsedSeconds >= SECONDS).toBe(true);
      // The tenant really raced the calls, and calls got through between the swaps.
      expect(report.swaps).toBeGreaterThan(100);
      expect(report.failures).toBeLessThan(report.iterations);
      // Every refusal said what happened in the tools' words, none passed on a bare system error.
      expect(unclear).toEqual([]);
      console.log(
        `${_name}: ${report.iterations} calls (${report.failures} failed) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
      );
    },
    SECONDS * 1000 + 8000,
  );
});
