/**
 * The sandbox state directory under the swap fuzzer (tests/helpers/swap-fuzzer.ts), with real
 * bubblewrap. The state directory is `$TMPDIR/mango-sandbox-<uid>-<gid>`, and the temp directory is
 * world-writable and sticky, so what another local user can change on that path is exactly this: while
 * the name is not taken (before the server first makes it, or after a temp cleaner removed it), plant it
 * as an entry of its own, and then exchange its own entries there as often as it likes. Once the server
 * has made the directory (root's, 0755), the sticky bit keeps every other user from renaming or
 * swapping it, and nobody else can write inside it; the temp directory itself is the operator's.
 *
 * So here a local user (a uid of its own, the exchanger run with it) has planted the state directory
 * name of one sandbox uid as a directory of its own and exchanges it with its own symlink to a
 * root-owned sentinel (entries mode 0700, a mode-04755 file in each directory) thousands of times a
 * second, while sandboxes for that uid are made, and sandboxes of another uid, whose state directory the
 * server made first, build and run commands. Each sandbox of the planted uid fails with the reason
 * (the directory is another user's, or not a directory), each of the other runs its command, and the
 * sentinel stays identical in bytes, modes and owners.
 */

import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, chownSync, lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { createSentinelTree, fuzzSwaps, type SentinelTree } from '../helpers/swap-fuzzer.ts';
import { testSandboxUsers } from '../helpers/test-sandbox-users.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

/** Sandbox builds are slow: at least 300 calls or SECONDS, whichever ends first. */
const ITERATIONS = 300;
const SECONDS = 10;
/** The other local user: neither the server (root) nor a sandbox uid. */
const LOCAL_USER = { uid: 64_999, gid: 64_999 };

describeSandbox('sandboxes built while a local user swaps a planted state directory name', () => {
  const temp = makeTempDirectory('mango-state-swaps-');
  /** Stands for /tmp: root's, mode 1777. */
  const tmp = join(temp.path, 'tmp');
  const previousTmpdir = process.env.TMPDIR;
  let layout: SandboxLayout;
  let sandbox: BubblewrapSandbox;
  let plantedBase = 0;
  let sentinel: SentinelTree;

  beforeAll(async () => {
    chmodSync(temp.path, 0o755);
    mkdirSync(tmp);
    chmodSync(tmp, 0o1777);
    process.env.TMPDIR = tmp;
    // The server's sandboxes: their state directory is made by the server, in the shared temp directory.
    sandbox = createTestSandbox({ pool: { maxIdle: 0 } });
    layout = await createSandboxLayout(sandbox);
    // Another server's range: its state directory, planted by the local user before it starts.
    plantedBase = DEFAULT_SANDBOX_ID_RANGE.base + DEFAULT_SANDBOX_ID_RANGE.count;
    const planted = join(tmp, `mango-sandbox-range-${plantedBase}`);
    mkdirSync(planted, { mode: 0o755 });
    chownSync(planted, LOCAL_USER.uid, LOCAL_USER.gid);
    sentinel = createSentinelTree(join(temp.path, 'sentinel'), tmp, { privileged: true });
  });
  afterAll(async () => {
    await sandbox.poolSettled();
    sandbox.dispose();
    layout.remove();
    if (previousTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmpdir;
    temp.remove();
  });

  test('the server’s own state directory is out of the local user’s reach (sticky temp directory)', async () => {
    const own = sandbox.stateDirectory()!;
    expect(own).toBe(join(tmp, `mango-sandbox-range-${DEFAULT_SANDBOX_ID_RANGE.base}`));
    const before = lstatSync(own);
    const moved = Bun.spawnSync(
      ['setpriv', `--reuid=${LOCAL_USER.uid}`, `--regid=${LOCAL_USER.gid}`, '--clear-groups', '--'].concat([
        'mv',
        '-T',
        own,
        join(tmp, 'taken'),
      ]),
      { stderr: 'pipe' },
    );
    expect(moved.exitCode).not.toBe(0);
    expect(moved.stderr.toString()).toContain('Operation not permitted');
    expect(lstatSync(own)).toMatchObject({ ino: before.ino, uid: 0, gid: 0, mode: 0o40755 });
  });

  test(
    'every sandbox of the planted uid fails with the reason, every other one runs, the sentinel is untouched',
    async () => {
      const planted = `mango-sandbox-range-${plantedBase}`;
      const refused = new RegExp(
        `^The shell sandbox cannot run: the sandbox state directory is unsafe: ${join(tmp, planted).replaceAll('/', '\\/')} (belongs to uid ${LOCAL_USER.uid}, not to this server\\.|is not a directory\\.)$`,
      );
      const unclear: string[] = [];
      let ran = 0;
      /** Refusals by their reason's first word: `belongs` (the local user's directory) or `is` (its link). */
      const reasons = new Map<string, number>();
      const report = await fuzzSwaps({
        workspace: tmp,
        componentsToSwap: [planted],
        sentinel,
        tenant: LOCAL_USER,
        operation: async (iteration) => {
          if (iteration % 2 === 0) {
            // A new sandbox of the planted uid opens (and would make) its state directory.
            const victim = createTestSandbox({
              users: testSandboxUsers({ base: plantedBase, count: DEFAULT_SANDBOX_ID_RANGE.count }),
              pool: { maxIdle: 0 },
            });
            const status = victim.status();
            victim.dispose();
            if (status.available) {
              unclear.push('a sandbox of the planted uid was available');
              return { ok: true };
            }
            const kind = refused.exec(status.reason)?.[1]?.split(/[ ,]/)[0];
            if (kind === undefined) unclear.push(status.reason);
            else reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
            return { ok: false, reason: status.reason };
          }
          const result = await sandbox.run(
            bashCommand('id -un; cat /etc/passwd', layout.alice, layout.reachable),
          );
          if (result.exitCode === 0 && result.stdout.startsWith('sandbox\n')) ran += 1;
          else unclear.push(`exit ${result.exitCode}: ${result.stdout}${result.stderr}`);
          return { ok: result.exitCode === 0, ...result };
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      console.log(
        `sandbox state directory: ${report.iterations} calls (sandboxes of the planted uid refused: ${JSON.stringify(Object.fromEntries(reasons))}; ${ran} commands ran) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
      );
      expect(report.leaks).toEqual([]);
      expect(report.sentinelAfter).toEqual(report.sentinelBefore);
      expect(report.sentinelBefore[`${planted}/${sentinel.marker}-setuid`]).toMatchObject({
        mode: 0o104755,
        uid: 0,
        gid: 0,
      });
      expect(report.iterations === ITERATIONS || report.elapsedSeconds >= SECONDS).toBe(true);
      expect(report.swaps).toBeGreaterThan(100);
      expect(unclear).toEqual([]);
      // Half the calls were each kind, and each ended as it must.
      expect([...reasons.values()].reduce((sum, count) => sum + count, 0)).toBe(
        Math.ceil(report.iterations / 2),
      );
      expect(ran).toBe(Math.floor(report.iterations / 2));
      // The planted entry is the local user's still: nothing of the server's was made or changed there.
      expect(lstatSync(join(tmp, planted))).toMatchObject({ uid: LOCAL_USER.uid, mode: 0o40755 });
    },
    SECONDS * 1000 + 30_000,
  );
});
