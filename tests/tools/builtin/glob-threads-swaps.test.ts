/**
 * glob on a tree wide enough that a file worker walks it on both cores (tools/fs/scan-glob-in-threads.ts:
 * subtrees lent by descriptor to glob threads), under the swap fuzzer (tests/helpers/swap-fuzzer.ts):
 * while the tenant exchanges subtrees the threads walk, and entries inside them, with symlinks to an
 * outside sentinel tree, no call reports anything of the sentinel, and the sentinel is left untouched.
 * Calls may fail in the tools' own words; none may list outside.
 *
 * Through a worker the sentinel is not even in the worker's mounts, so the tool's run there cannot show
 * the threaded walk's own guarantee: the threaded scan also runs here, in this process, where the
 * sentinel is one swapped link away.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getAccessPolicy } from '../../../src/tools/access/access-policy.ts';
import { computeReachableSet } from '../../../src/tools/access/reachable-set.ts';
import { createWalkEntryFilter } from '../../../src/tools/access/walk-entry-filter.ts';
import { scanGlob } from '../../../src/tools/fs/scan-glob.ts';
import { globThreadWalks } from '../../../src/tools/fs/scan-glob-in-threads.ts';
import { userFileContext } from '../../../src/tools/user-file-context.ts';
import { createChat } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import {
  createSentinelTree,
  expectSentinelHeld,
  fuzzSwaps,
  RAW_SYSTEM_ERROR,
  type SentinelTree,
} from '../../helpers/swap-fuzzer.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('glob on a wide tree under swaps', (fileWork) => {
  const temp = makeTempDirectory('mango-glob-threads-swaps-');
  const workspace = join(temp.path, 'ws');
  let sentinel: SentinelTree;
  /** More top-level directories than the calling thread lists before handing subtrees to threads. */
  const WIDE = 24;
  const top = Array.from({ length: WIDE }, (_, index) => `d${String(index).padStart(2, '0')}`);
  /** Subtrees the threads are lent, their subdirectories and files: parents before children. */
  const components = ['d03', 'd03/sub', 'd03/sub/x.txt', 'd11', 'd11/sub', 'd17/a.txt', 'd17/sub', 'd23'];
  const ITERATIONS = 1500;
  const SECONDS = 6;

  beforeAll(async () => {
    for (const directory of top) {
      mkdirSync(join(workspace, directory, 'sub', 'deep'), { recursive: true });
      writeFileSync(join(workspace, directory, 'a.txt'), 'a\n');
      writeFileSync(join(workspace, directory, 'sub', 'x.txt'), 'x\n');
      writeFileSync(join(workspace, directory, 'sub', 'deep', 'y.txt'), 'y\n');
    }
    await shareWithSandboxUser(workspace, fileWork);
    sentinel = createSentinelTree(join(temp.path, 'sentinel'), workspace);
  });
  afterAll(() => temp.remove());

  // Once: it does not depend on where the tools' file work runs.
  if (fileWork === 'in-process')
    test(
      'the threaded scan itself, in this process, lists nothing of the sentinel',
      async () => {
        const reachable = computeReachableSet({
          workspaces: [{ path: workspace, access: 'read-write', kind: 'personal' }],
          workingDirectory: workspace,
          homeDirectory: workspace,
          confined: true,
          protectedPaths: [],
        });
        const policy = await getAccessPolicy(userFileContext('alice', reachable, Date.now));
        const patterns = ['**', '**/*.txt', 'd*/sub/**'];
        let threaded = 0;
        const report = await fuzzSwaps({
          workspace,
          componentsToSwap: components,
          sentinel,
          operation: async (iteration) => {
            const filter = createWalkEntryFilter(policy);
            const walks = globThreadWalks(policy, filter);
            const scan = await scanGlob(
              {
                pattern: patterns[iteration % patterns.length] as string,
                root: workspace,
                dot: false,
                maxResults: 100_000,
                admits: (directory, name, kind) => filter.admitsEntry(directory, name, kind === 'link'),
              },
              async (start, options) => {
                const outcome = await walks(start, options);
                if (outcome !== undefined) threaded += 1;
                return outcome;
              },
            );
            return scan.matches.paths();
          },
          iterations: ITERATIONS,
          seconds: SECONDS,
        });
        expectSentinelHeld(report, { iterations: ITERATIONS, seconds: SECONDS });
        // The scans were the threaded ones.
        expect(threaded).toBe(report.iterations);
      },
      SECONDS * 1000 + 8000,
    );

  test(
    'glob returns nothing of the sentinel and leaves it untouched',
    async () => {
      const calls = createChat({
        workingDirectory: workspace,
        homeDirectory: workspace,
        confined: true,
        fileWork,
      });
      const unclear: string[] = [];
      const patterns = ['**', '**/*.txt', 'd*/sub/**'];
      const report = await fuzzSwaps({
        workspace,
        componentsToSwap: components,
        sentinel,
        operation: async (iteration) => {
          const outcome = await calls.call('glob', { pattern: patterns[iteration % patterns.length] });
          if (!outcome.ok && RAW_SYSTEM_ERROR.test(outcome.error.message))
            unclear.push(outcome.error.message);
          return outcome;
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      expectSentinelHeld(report, { iterations: ITERATIONS, seconds: SECONDS });
      expect(unclear).toEqual([]);
      console.log(
        `glob (${fileWork}, wide tree): ${report.iterations} calls (${report.failures} failed) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps`,
      );
    },
    SECONDS * 1000 + 8000,
  );
});
