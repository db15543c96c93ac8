/**
 * Personal workspaces made on first use under the swap fuzzer (tests/helpers/swap-fuzzer.ts).
 *
 * What a tenant can really change on the way to a new personal workspace: nothing. The workspaces
 * directory (MANGO_WORKSPACES_DIR) is made by root with mode 0711 and its ancestors are root's, so no
 * tenant can rename, swap or plant an entry in any of them (renaming needs write access to the parent);
 * the workspace itself does not exist until the server makes it, and once it is given to the tenant, the
 * tenant owns what is inside it, which the creation never looks at, but still cannot rename the workspace
 * in the root-owned workspaces directory. So the fuzzer is not pointed at those components in their real
 * setting. Instead it takes the worst an operator could configure: a workspaces directory lying inside a
 * directory the tenant controls, where the tenant can exchange both the workspaces directory and its
 * parent with links to a root-owned sentinel (entries mode 0700, a mode-04755 file in each directory).
 * While it does, users' workspaces are made (first use) and looked up again (second use): each call
 * returns the workspace's path made in the real workspaces directory, owned by the configured owner
 * with mode 0700, or fails with ELOOP (a link on the way, refused by the open); the sentinel stays
 * identical in bytes, modes and owners.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { InMemoryWorkspaceRepository } from '../../src/workspaces/workspace-repository.ts';
import { WorkspaceService } from '../../src/workspaces/workspace-service.ts';
import { createSentinelTree, fuzzSwaps, type SentinelTree } from '../helpers/swap-fuzzer.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';

/** At least 300 calls (half of them first uses), or SECONDS, whichever ends first. */
const ITERATIONS = 3000;
const SECONDS = 6;
/** Not the server's uid, so a chown that landed in the sentinel would show as a changed owner. */
const OWNER = { uid: 65_534, gid: 65_534 };

const temp = makeTempDirectory('mango-workspace-swaps-');
/** The directory the tenant is assumed to control. */
const tenantArea = join(temp.path, 'tenant-area');
const workspacesDirectory = join(tenantArea, 'mango', 'workspaces');
let sentinel: SentinelTree;

beforeAll(() => {
  mkdirSync(workspacesDirectory, { recursive: true, mode: 0o711 });
  sentinel = createSentinelTree(join(temp.path, 'sentinel'), tenantArea, { privileged: true });
});
afterAll(() => temp.remove());

test(
  'a personal workspace made while the workspaces directory and its parent are swapped is made there or not at all',
  async () => {
    const service = new WorkspaceService({
      repository: new InMemoryWorkspaceRepository(),
      workspacesDirectory,
      protectedPaths: [],
      ownerOf: async () => OWNER,
    });
    const made = new Set<string>();
    const refusals = new Set<string>();
    const report = await fuzzSwaps({
      workspace: tenantArea,
      componentsToSwap: ['mango', 'mango/workspaces'],
      sentinel,
      // Even: a user's first use; odd: the same user again.
      operation: async (iteration) => {
        const userId = `user-${iteration - (iteration % 2)}`;
        try {
          const path = await service.personalWorkspace(userId);
          expect(path).toBe(join(workspacesDirectory, userId));
          made.add(userId);
          return { ok: true, path };
        } catch (error) {
          refusals.add(`${(error as { code?: string }).code}`);
          throw error;
        }
      },
      iterations: ITERATIONS,
      seconds: SECONDS,
    });
    expect(report.leaks).toEqual([]);
    expect(report.sentinelAfter).toEqual(report.sentinelBefore);
    expect(report.sentinelBefore[`mango/${sentinel.marker}-setuid`]).toMatchObject({
      mode: 0o104755,
      uid: 0,
      gid: 0,
    });
    expect(report.iterations === ITERATIONS || report.elapsedSeconds >= SECONDS).toBe(true);
    expect(report.swaps).toBeGreaterThan(100);
    expect(made.size).toBeGreaterThan(0);
    // Refused only as a directory on the way that is a link now (the open refuses links).
    expect([...refusals]).toEqual(refusals.size === 0 ? [] : ['ELOOP']);
    for (const userId of made) {
      const stats = lstatSync(join(workspacesDirectory, userId));
      expect({
        directory: stats.isDirectory(),
        mode: stats.mode & 0o7777,
        uid: stats.uid,
        gid: stats.gid,
      }).toEqual({ directory: true, mode: 0o700, ...OWNER });
    }
    console.log(
      `personal workspaces: ${report.iterations} calls (${report.failures} failed: ${[...refusals].join(', ')}), ${made.size} workspaces made, in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
    );
  },
  SECONDS * 1000 + 8000,
);
