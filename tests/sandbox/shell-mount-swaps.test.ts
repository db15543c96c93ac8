/**
 * The shell sandbox's mounts under the swap fuzzer (tests/helpers/swap-fuzzer.ts), with real
 * bubblewrap: while the tenant exchanges the chat's working directory and a directory below it (both
 * inside the tenant's own workspace, so really the tenant's to rename) with symlinks to a sentinel tree
 * outside every workspace (every directory 0777, every file 0666, so a sandboxed command that reached it
 * could change it), bash in a confined chat and in an unrestricted one reads, lists, creates and changes
 * files in them. No output ever shows the sentinel's marker and the sentinel stays identical in bytes,
 * modes and owners; a call may be refused while its mounts change, and calls do run in between.
 *
 * The workspace itself and the workspaces directory above it are root's (0711), so the tenant cannot
 * rename them; they are not swapped.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { createSentinelTree, fuzzSwaps, type SentinelTree } from '../helpers/swap-fuzzer.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

/** Sandbox calls are slow: each chat gets at least 300 calls or SECONDS, whichever ends first. */
const ITERATIONS = 300;
const SECONDS = 10;
const INSIDE_MARKER = 'inside-workspace-marker';
/**
 * What a refused call may say: the working directory resolves outside the chat's reach now, a mount
 * source changed while the sandbox was built, or bubblewrap refused to build it (a mount or the chdir
 * met the swap); the command did not run.
 */
const REFUSALS =
  /is denied: it lies outside what this chat can reach|changed while its sandbox was built|The shell sandbox could not be built for this call, so the command did not run/;

describeSandbox('bash while the tenant swaps its working directory with links out', () => {
  let layout: SandboxLayout;
  let sandbox: BubblewrapSandbox;
  let sentinel: SentinelTree;
  const probe = createTestSandbox();

  beforeAll(async () => {
    layout = await createSandboxLayout(probe);
    sandbox = createTestSandbox();
    const project = join(layout.alice, 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    writeFileSync(join(project, 'c.txt'), `${INSIDE_MARKER}\n`, { mode: 0o644 });
    writeFileSync(join(project, 'sub', 'd.txt'), `${INSIDE_MARKER}\n`, { mode: 0o644 });
    await handToSandboxUser(project, 'alice', sandbox);
    await handToSandboxUser(join(project, 'sub'), 'alice', sandbox);
    sentinel = createSentinelTree(join(layout.elsewhere, 'sentinel'), layout.alice, { writable: true });
  });
  afterAll(async () => {
    await sandbox.poolSettled();
    sandbox.dispose();
    probe.dispose();
    layout.remove();
  });

  for (const confined of [true, false]) {
    test(
      `${confined ? 'a confined' : 'an unrestricted'} chat's bash shows nothing of the sentinel and leaves it untouched`,
      async () => {
        const registry = new ToolRegistry();
        registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
        const project = join(layout.alice, 'project');
        const reachable = computeReachableSet({
          workspaces: [
            { path: layout.alice, access: 'read-write', kind: 'personal' },
            { path: layout.projects, access: 'read-only', kind: 'granted' },
          ],
          workingDirectory: project,
          homeDirectory: layout.alice,
          confined,
          protectedPaths: layout.reachable.protectedPaths,
        });
        let ran = 0;
        const unclear: string[] = [];
        const report = await fuzzSwaps({
          workspace: layout.alice,
          componentsToSwap: ['project', 'project/sub'],
          sentinel,
          operation: async (call) => {
            const outcome = await executeTool(
              'bash',
              {
                command: `cat ./c.txt ./sub/d.txt ${project}/c.txt 2>&1; ls -a . ./sub ${project} ${project}/sub 2>&1; touch ./t-${call} ./sub/t-${call} 2>&1; chmod 0600 ./c.txt ./sub/d.txt 2>&1; true`,
              },
              { userId: 'alice', chatId: confined ? 'confined' : 'unrestricted', reachable },
              { enabled: true, parameters: {} },
              { registry },
            );
            if (!outcome.ok && !REFUSALS.test(outcome.error.message)) unclear.push(outcome.error.message);
            if (outcome.ok && (outcome.result as ShellCommandResult).stdout.includes(INSIDE_MARKER)) ran += 1;
            return outcome;
          },
          iterations: ITERATIONS,
          seconds: SECONDS,
        });
        expect(report.leaks).toEqual([]);
        expect(report.sentinelAfter).toEqual(report.sentinelBefore);
        expect(report.iterations === ITERATIONS || report.elapsedSeconds >= SECONDS).toBe(true);
        expect(report.swaps).toBeGreaterThan(100);
        expect(unclear).toEqual([]);
        // Not vacuous: commands ran in the real directory while the swaps went on.
        expect(ran).toBeGreaterThan(0);
        console.log(
          `bash (${confined ? 'confined' : 'unrestricted'}): ${report.iterations} calls (${report.failures} refused, ${ran} ran in the workspace) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
        );
      },
      SECONDS * 1000 + 20_000,
    );
  }
});
