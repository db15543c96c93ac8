/**
 * The migration walk under the swap fuzzer (tests/helpers/swap-fuzzer.ts): while a tenant exchanges
 * directories and files of the tree with links to a root-owned sentinel (entries 0700, a 04755 file in
 * each directory), the walk re-owns the tree again and again, each time from one uid to another. The
 * personal rule takes root's entries too, so a walk that followed a link, or changed an entry by a name
 * swapped meanwhile, would re-own or chmod the sentinel: it stays identical, and a walk that met a swap
 * stops with TreeChangedError. Needs root (it sets owners).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { lchownSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrateTreeOwners } from '../../src/sandbox/migrate-tree-owners.ts';
import {
  createSentinelTree,
  expectSentinelHeld,
  fuzzSwaps,
  type SentinelTree,
} from '../helpers/swap-fuzzer.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';

const ITERATIONS = 20_000;
const SECONDS = 6;
/** The walk alternates: A's entries to B, then B's to A. Neither is root, so the sentinel's are never "done". */
const [A, B] = [1_900_000_101, 1_900_000_102];
const asRoot = process.getuid?.() === 0;

const temp = makeTempDirectory('mango-migrate-swaps-');
const tree = join(temp.path, 'tree');
let sentinel: SentinelTree;

/** Owners of every entry below `root`, links not followed. */
function ownersBelow(root: string): Set<number> {
  const found = new Set<number>();
  const visit = (path: string) => {
    const stats = lstatSync(path);
    found.add(stats.uid);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return found;
}

describe.skipIf(!asRoot)('migrateTreeOwners under swaps', () => {
  beforeAll(() => {
    mkdirSync(join(tree, 'inner', 'deep'), { recursive: true });
    writeFileSync(join(tree, 'inner', 'deep', 'c.txt'), 'c\n');
    writeFileSync(join(tree, 'inner', 'b.txt'), 'b\n');
    writeFileSync(join(tree, 'top.txt'), 'top\n');
    sentinel = createSentinelTree(join(temp.path, 'sentinel'), tree, { privileged: true });
    for (const path of ['.', 'inner', 'inner/deep', 'inner/deep/c.txt', 'inner/b.txt', 'top.txt']) {
      lchownSync(join(tree, path), A, A);
    }
  });
  afterAll(() => temp.remove());

  test(
    'a tree re-owned while its directories and files are swapped for links out changes nothing outside',
    async () => {
      const refusals = new Set<string>();
      let completed = 0;
      const report = await fuzzSwaps({
        workspace: tree,
        componentsToSwap: ['inner', 'inner/deep', 'inner/deep/c.txt', 'top.txt'],
        sentinel,
        operation: async (iteration) => {
          const [from, to] = iteration % 2 === 0 ? [A, B] : [B, A];
          try {
            const migration = migrateTreeOwners(
              { path: tree, rule: { kind: 'personal', legacyUid: from, uid: to, gid: to } },
              { dryRun: false },
            );
            completed += 1;
            return { ok: true, migration };
          } catch (error) {
            refusals.add(String((error as { code?: unknown }).code));
            throw error;
          }
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      expectSentinelHeld(report, { iterations: ITERATIONS, seconds: SECONDS, privileged: sentinel });
      expect(completed).toBeGreaterThan(0);
      // A walk meets a swap only between examining a directory and entering it, and says so.
      expect([...refusals]).toEqual(refusals.size === 0 ? [] : ['tree_changed_during_migration']);
      // With the tenant gone, one more walk gives the whole tree to one uid.
      migrateTreeOwners(
        { path: tree, rule: { kind: 'personal', legacyUid: A, uid: B, gid: B } },
        { dryRun: false },
      );
      expect([...ownersBelow(tree)]).toEqual([B]);
      console.log(
        `migration walks: ${report.iterations} (${report.failures} stopped by a swap), in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps`,
      );
    },
    SECONDS * 1000 + 8000,
  );
});
