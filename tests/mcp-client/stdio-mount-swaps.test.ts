/**
 * A stdio MCP server's mounts under the swap fuzzer (tests/helpers/swap-fuzzer.ts), with real
 * bubblewrap: alice's chats are confined to `project` (or `project/sub`) in her workspace, and each call
 * alternates between the two, so every call starts the server's program in a new sandbox (one program
 * per user at most) whose mounts are built while the tenant exchanges `project` and `project/sub` with
 * symlinks to a sentinel tree outside every workspace (every directory 0777, every file 0666, so the
 * program could read and change whatever of it were mounted). The probe's read_path and write_path
 * never return the sentinel's marker, the sentinel stays identical in bytes, modes and owners, and a call
 * either runs or is refused with a clear error.
 *
 * The workspace itself and the workspaces directory above it are root's (0711), so the tenant cannot
 * rename them; they are not swapped. Nor is the server's state directory for the program
 * (`<workspaces>/.mcp-state/<user>/<server>`, also mounted): what is inside it is the sandbox uid's, but
 * its parents are root's, so the mount source itself cannot be exchanged, and the server never acts
 * inside it.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { createSentinelTree, fuzzSwaps, type SentinelTree } from '../helpers/swap-fuzzer.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup, probeServer } from './external-servers.ts';

/** Each call starts a program in a new sandbox: slow, so the 10 s bound is what ends it. */
const ITERATIONS = 300;
const SECONDS = 10;
const INSIDE_MARKER = 'inside-workspace-marker';
/** What a refused call may say, by kind; the program did not run on anything else. */
const REFUSALS: [string, RegExp][] = [
  ['outside the reach', /is denied: it lies outside what this chat can reach/],
  ['mount source changed', /changed while its sandbox was built/],
  // bubblewrap's own check of a mount or the chdir met the swap, and the program never started.
  ['bubblewrap refused', /could not be (built|connected).*bwrap: /s],
];

/** The connection pool's clock; each call moves it a minute on, past any backoff. */
let clock = 0;

describeSandbox('a stdio MCP server started while the tenant swaps its mounts with links out', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;
  let sentinel: SentinelTree;

  beforeAll(async () => {
    sandbox = createTestSandbox();
    // One program per user, and a clock the test moves past the pool's backoff after each call: every
    // call really starts a program in a new sandbox instead of getting the last failure again.
    setup = await createExternalSetup(sandbox, [probeServer()], {
      pool: { maxPerUser: 1, now: () => clock },
    });
    const project = join(setup.layout.alice, 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    writeFileSync(join(project, 'c.txt'), `${INSIDE_MARKER}\n`, { mode: 0o644 });
    writeFileSync(join(project, 'sub', 'c.txt'), `${INSIDE_MARKER}\n`, { mode: 0o644 });
    await handToSandboxUser(project, 'alice', sandbox);
    await handToSandboxUser(join(project, 'sub'), 'alice', sandbox);
    sentinel = createSentinelTree(join(setup.layout.elsewhere, 'sentinel'), setup.layout.alice, {
      writable: true,
    });
  }, 60_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
  }, 30_000);

  test(
    'read_path and write_path show nothing of the sentinel and leave it untouched',
    async () => {
      const { layout } = setup;
      const confinedTo = (directory: string): ReachableSet =>
        computeReachableSet({
          workspaces: [{ path: layout.alice, access: 'read-write', kind: 'personal' }],
          workingDirectory: directory,
          homeDirectory: layout.alice,
          confined: true,
          protectedPaths: setup.aliceReachable.protectedPaths,
        });
      const directories = [join(layout.alice, 'project'), join(layout.alice, 'project', 'sub')];
      const reaches = directories.map(confinedTo);
      const registry = await setup.source.registryFor('alice');
      const call = (tool: string, args: Record<string, unknown>, reachable: ReachableSet) =>
        executeTool(
          tool,
          args,
          { userId: 'alice', reachable, dataDirectory: setup.dataDirectory },
          undefined,
          { registry },
        );
      let ran = 0;
      const unclear: string[] = [];
      const refusals = new Map<string, number>();
      const report = await fuzzSwaps({
        workspace: layout.alice,
        componentsToSwap: ['project', 'project/sub'],
        sentinel,
        operation: async (iteration) => {
          clock += 60_000;
          const directory = directories[iteration % 2]!;
          const reachable = reaches[iteration % 2]!;
          const read = await call('mcp__probe__read_path', { path: join(directory, 'c.txt') }, reachable);
          const wrote = await call(
            'mcp__probe__write_path',
            { path: join(directory, `w-${iteration}.txt`), text: `written ${iteration}` },
            reachable,
          );
          for (const outcome of [read, wrote]) {
            if (outcome.ok) continue;
            const kind = REFUSALS.find(([, pattern]) => pattern.test(outcome.error.message))?.[0];
            if (kind === undefined) unclear.push(outcome.error.message);
            else refusals.set(kind, (refusals.get(kind) ?? 0) + 1);
          }
          if (JSON.stringify(read).includes(INSIDE_MARKER)) ran += 1;
          return { ok: read.ok && wrote.ok, read, wrote };
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      console.log(
        `stdio MCP server: ${report.iterations} calls (${report.failures} refused: ${JSON.stringify(Object.fromEntries(refusals))}; ${ran} read the workspace) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
      );
      expect(report.leaks).toEqual([]);
      expect(report.sentinelAfter).toEqual(report.sentinelBefore);
      expect(report.iterations === ITERATIONS || report.elapsedSeconds >= SECONDS).toBe(true);
      expect(report.swaps).toBeGreaterThan(100);
      expect(unclear).toEqual([]);
      // Not vacuous: programs ran on the real directories while the swaps went on.
      expect(ran).toBeGreaterThan(0);
    },
    SECONDS * 1000 + 30_000,
  );
});
