/**
 * The writing tools under the swap fuzzer (tests/helpers/swap-fuzzer.ts): while the tenant exchanges the
 * components of each call's path with symlinks to a root-owned sentinel tree (every entry mode 0700, a
 * mode-04755 file in each directory), write_file (creating and replacing), edit_file and write_file
 * creating missing parents leave the sentinel identical in bytes, modes and owners and return nothing of
 * it. A call may fail ("changed while the tool was using it"), in the tools' own words, never with a
 * bare system error; one that succeeds wrote inside the workspace, where the file is found afterwards.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolExecutionResult } from '../../../src/tools/types.ts';
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

describeFileWork('write tools under swaps', (fileWork) => {
  const temp = makeTempDirectory('mango-write-swaps-');
  const workspace = join(temp.path, 'ws');
  let sentinel: SentinelTree;

  /** A failed tool result inside an outcome's JSON: its classification and message. */
  const FAILURE = /"classification":"(\w+)","message":"((?:[^"\\]|\\.)*)"/g;
  /** Each operation runs this many times (at least 300) or for SECONDS, whichever ends first. */
  const ITERATIONS = 2000;
  const SECONDS = 6;

  beforeAll(async () => {
    mkdirSync(join(workspace, 'inner', 'deep'), { recursive: true });
    mkdirSync(join(workspace, 'p', 'q'), { recursive: true });
    writeFileSync(join(workspace, 'inner', 'b.txt'), 'needle b\n');
    writeFileSync(join(workspace, 'inner', 'deep', 'c.txt'), 'needle c\n');
    await shareWithSandboxUser(workspace, fileWork);
    sentinel = createSentinelTree(join(temp.path, 'sentinel'), workspace, { privileged: true });
  });
  afterAll(() => temp.remove());

  const chat = () =>
    createChat({ workingDirectory: workspace, homeDirectory: workspace, confined: true, fileWork });
  type Chat = ReturnType<typeof chat>;

  /** The written files a successful call must have left in the workspace, by relative path and content. */
  type Written = Map<string, string>;

  interface WriteCase {
    components: string[];
    operation: (calls: Chat, iteration: number, written: Written) => Promise<unknown>;
  }

  /** A read, then the write it allows; failed when either failed, with both results checked for the marker. */
  async function readThenWrite(
    calls: Chat,
    path: string,
    write: (read: ToolExecutionResult) => [string, Record<string, unknown>],
  ): Promise<unknown> {
    const read = await calls.call('read_file', { path });
    if (!read.ok) return read;
    const wrote = await calls.call(...write(read));
    return { ok: wrote.ok, read, wrote };
  }

  const cases: [string, WriteCase][] = [
    [
      'write_file creating a file',
      {
        components: ['inner', 'inner/deep'],
        operation: async (calls, i, written) => {
          const path = `inner/deep/new-${i}.txt`;
          const outcome = await calls.call('write_file', { path, content: `created ${i}\n` });
          if (outcome.ok) written.set(path, `created ${i}\n`);
          return outcome;
        },
      },
    ],
    [
      'write_file replacing a file',
      {
        components: ['inner', 'inner/deep', 'inner/deep/c.txt'],
        operation: (calls, i) =>
          readThenWrite(calls, 'inner/deep/c.txt', () => [
            'write_file',
            { path: 'inner/deep/c.txt', content: `needle c ${i}\n` },
          ]),
      },
    ],
    [
      'edit_file',
      {
        components: ['inner', 'inner/b.txt'],
        operation: (calls) =>
          readThenWrite(calls, 'inner/b.txt', (read) => {
            const [oldString, newString] = JSON.stringify(read).includes('needle')
              ? ['needle', 'pin']
              : ['pin', 'needle'];
            return ['edit_file', { path: 'inner/b.txt', oldString, newString }];
          }),
      },
    ],
    [
      'write_file creating missing parents',
      {
        components: ['p', 'p/q'],
        operation: async (calls, i, written) => {
          const path = `p/q/a-${i}/b/c/new.txt`;
          const outcome = await calls.call('write_file', { path, content: `nested ${i}\n` });
          if (outcome.ok) written.set(path, `nested ${i}\n`);
          return outcome;
        },
      },
    ],
  ];

  test.each(cases)(
    '%s returns nothing of the sentinel and leaves it untouched',
    async (name, { components, operation }) => {
      const calls = chat();
      const written: Written = new Map();
      const classifications = new Set<string>();
      const unclear: string[] = [];
      const report = await fuzzSwaps({
        workspace,
        componentsToSwap: components,
        sentinel,
        operation: async (iteration) => {
          const outcome = await operation(calls, iteration, written);
          for (const [, found, message] of JSON.stringify(outcome).matchAll(FAILURE)) {
            classifications.add(found!);
            if (RAW_SYSTEM_ERROR.test(message!)) unclear.push(message!);
          }
          return outcome;
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      expectSentinelHeld(report, { iterations: ITERATIONS, seconds: SECONDS, privileged: sentinel });
      // Every refusal said what happened in the tools' words, none passed on a bare system error.
      expect(unclear).toEqual([]);
      for (const [path, content] of written) {
        expect(readFileSync(join(workspace, path), 'utf8')).toBe(content);
      }
      console.log(
        `${name}: ${report.iterations} calls (${report.failures} failed: ${[...classifications].join(', ')}) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
      );
    },
    SECONDS * 1000 + 8000,
  );
});
