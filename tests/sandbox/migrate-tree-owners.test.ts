/**
 * The walk of `mango workspace migrate-owners` over one tree, on real files (needs root: it sets
 * owners). The CLI test covers the whole layout; this one the walk's own promises: links never
 * followed, the root changed last, a dry run reporting the real run's changes, skipped and
 * other-filesystem directories not entered, and a multiply linked file changed once per run.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import type { OwnerRule } from '../../src/sandbox/legacy-owner-change.ts';
import {
  type ChangedEntry,
  migrateTreeOwners,
  type TreeMigration,
} from '../../src/sandbox/migrate-tree-owners.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';

const LEGACY = 61000;
const USER = 1_900_000_001;
const personal: OwnerRule = { kind: 'personal', legacyUid: LEGACY, uid: USER, gid: USER };
const asRoot = process.getuid?.() === 0;

function mountTmpfs(path: string): boolean {
  return Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=1m', 'mango-test', path]).exitCode === 0;
}

/** Whether this host lets the test mount a tmpfs (root without CAP_SYS_ADMIN, in a container, may not). */
const canMount = (() => {
  if (!asRoot) return false;
  const probe = makeTempDirectory('mango-migrate-mount-');
  try {
    const mounted = mountTmpfs(probe.path);
    if (mounted) Bun.spawnSync(['umount', probe.path]);
    else console.warn('[skip] another-filesystem case: this host refuses to mount a tmpfs');
    return mounted;
  } finally {
    probe.remove();
  }
})();

let temp: { path: string; remove: () => void };
let tree: string;
let outside: string;

function own(path: string, uid: number, mode?: number): void {
  lchownSync(path, uid, uid);
  if (mode !== undefined) chmodSync(path, mode);
}

/** Every entry below `root` (`.` for itself) as `uid:gid mode`, links not followed. */
function owners(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (path: string) => {
    const stats = lstatSync(path);
    found[relative(root, path) || '.'] = `${stats.uid}:${stats.gid} ${(stats.mode & 0o7777).toString(8)}`;
    if (stats.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
  };
  visit(root);
  return found;
}

function migrate(
  options: { dryRun: boolean; skip?: string[]; changedLinks?: Set<string> },
  path = tree,
): { migration: TreeMigration; changes: ChangedEntry[] } {
  const changes: ChangedEntry[] = [];
  const migration = migrateTreeOwners(
    { path, rule: personal, ...(options.skip ? { skip: options.skip } : {}) },
    {
      dryRun: options.dryRun,
      onChange: (change) => changes.push(change),
      ...(options.changedLinks ? { changedLinks: options.changedLinks } : {}),
    },
  );
  return { migration, changes };
}

beforeEach(() => {
  temp = makeTempDirectory('mango-migrate-tree-');
  tree = join(temp.path, 'tree');
  outside = join(temp.path, 'outside');
  mkdirSync(join(outside, 'dir'), { recursive: true });
  writeFileSync(join(outside, 'secret'), 'secret\n');
  chmodSync(join(outside, 'secret'), 0o4755);
  writeFileSync(join(outside, 'dir', 'legacy'), 'legacy\n');
  if (asRoot) own(join(outside, 'dir', 'legacy'), LEGACY, 0o4755);
  mkdirSync(join(tree, 'a', 'b'), { recursive: true });
  writeFileSync(join(tree, 'a', 'b', 'file'), 'file\n');
  writeFileSync(join(tree, 'top'), 'top\n');
  symlinkSync(join(outside, 'secret'), join(tree, 'to-secret'));
  symlinkSync(join(outside, 'dir'), join(tree, 'a', 'to-dir'));
  if (asRoot) {
    for (const path of ['.', 'a', 'a/b', 'a/b/file', 'top', 'to-secret', 'a/to-dir']) {
      own(join(tree, path), LEGACY);
    }
    chmodSync(join(tree, 'top'), 0o4711);
  }
});

afterEach(() => temp.remove());

describe.skipIf(!asRoot)('migrateTreeOwners', () => {
  test('a dry run reports the real run’s changes in the same order (depth first, the root last) and changes nothing', () => {
    const before = owners(temp.path);
    const dry = migrate({ dryRun: true });
    expect(owners(temp.path)).toEqual(before);
    const real = migrate({ dryRun: false });
    expect(real).toEqual(dry);
    const legacy = { uid: LEGACY, gid: LEGACY };
    const user = { uid: USER, gid: USER };
    expect(real.changes).toEqual([
      { path: join(tree, 'a'), from: { ...legacy, mode: 0o755 }, to: { ...user, mode: 0o755 } },
      { path: join(tree, 'a', 'b'), from: { ...legacy, mode: 0o755 }, to: { ...user, mode: 0o755 } },
      { path: join(tree, 'a', 'b', 'file'), from: { ...legacy, mode: 0o644 }, to: { ...user, mode: 0o644 } },
      { path: join(tree, 'a', 'to-dir'), from: { ...legacy, mode: 0o777 }, to: { ...user, mode: 0o777 } },
      { path: join(tree, 'to-secret'), from: { ...legacy, mode: 0o777 }, to: { ...user, mode: 0o777 } },
      { path: join(tree, 'top'), from: { ...legacy, mode: 0o4711 }, to: { ...user, mode: 0o711 } },
      { path: tree, from: { ...legacy, mode: 0o755 }, to: { ...user, mode: 0o700 } },
    ]);
    expect(real.migration).toEqual({ reowned: 7, setuidCleared: 1, left: [] });
    const u = `${USER}:${USER}`;
    expect(owners(tree)).toEqual({
      '.': `${u} 700`,
      a: `${u} 755`,
      'a/b': `${u} 755`,
      'a/b/file': `${u} 644`,
      'a/to-dir': `${u} 777`,
      top: `${u} 711`,
      'to-secret': `${u} 777`,
    });
    // The links' targets: the one outside file of root and the one of 61000 keep owner and mode.
    expect(owners(outside)).toEqual({
      '.': '0:0 755',
      dir: '0:0 755',
      'dir/legacy': `${LEGACY}:${LEGACY} 4755`,
      secret: '0:0 4755',
    });
    expect(migrate({ dryRun: false })).toEqual({
      migration: { reowned: 0, setuidCleared: 0, left: [] },
      changes: [],
    });
  });

  test('a root that is a link, or lies below one, is refused, not followed', () => {
    symlinkSync(outside, join(temp.path, 'link'));
    for (const path of [join(temp.path, 'link'), join(temp.path, 'link', 'dir')]) {
      expect(() => migrate({ dryRun: false }, path)).toThrow(
        `${path} is not a directory reached without links (ELOOP): links are never followed, so nothing of it was changed.`,
      );
    }
    expect(() => migrate({ dryRun: false }, join(tree, 'top'))).toThrow(
      `${join(tree, 'top')} is not a directory reached without links (ENOTDIR): links are never followed, so nothing of it was changed.`,
    );
    expect(owners(outside)['dir/legacy']).toBe(`${LEGACY}:${LEGACY} 4755`);
  });

  test('a skipped directory is neither changed nor entered', () => {
    const { migration } = migrate({ dryRun: false, skip: [join(tree, 'a')] });
    expect(migration).toEqual({ reowned: 3, setuidCleared: 1, left: [] });
    expect(owners(join(tree, 'a'))).toEqual({
      '.': `${LEGACY}:${LEGACY} 755`,
      b: `${LEGACY}:${LEGACY} 755`,
      'b/file': `${LEGACY}:${LEGACY} 644`,
      'to-dir': `${LEGACY}:${LEGACY} 777`,
    });
  });

  test('a multiply linked setuid file loses its bits once per run, whatever tree meets it again', () => {
    linkSync(join(tree, 'top'), join(tree, 'a', 'top-again'));
    mkdirSync(join(temp.path, 'second'));
    own(join(temp.path, 'second'), LEGACY);
    linkSync(join(tree, 'top'), join(temp.path, 'second', 'top-third'));
    const run = (dryRun: boolean) => {
      const changedLinks = new Set<string>();
      return [
        migrate({ dryRun, changedLinks }),
        migrate({ dryRun, changedLinks }, join(temp.path, 'second')),
      ].map(({ migration }) => migration);
    };
    const expected: TreeMigration[] = [
      {
        reowned: 6,
        setuidCleared: 1,
        left: [
          { path: join(tree, 'a', 'top-again'), reason: 'hard link', links: 3 },
          { path: join(tree, 'top'), reason: 'hard link', links: 3 },
        ],
      },
      {
        reowned: 1,
        setuidCleared: 0,
        left: [{ path: join(temp.path, 'second', 'top-third'), reason: 'hard link', links: 3 }],
      },
    ];
    expect(run(true)).toEqual(expected);
    expect(run(false)).toEqual(expected);
    expect(owners(tree).top).toBe(`${LEGACY}:${LEGACY} 711`);
  });

  test.skipIf(!canMount)(
    'a directory on another filesystem is neither changed nor entered, and is reported',
    () => {
      const mounted = join(tree, 'a', 'mounted');
      mkdirSync(mounted);
      expect(mountTmpfs(mounted)).toBe(true);
      try {
        writeFileSync(join(mounted, 'inside'), 'inside\n');
        own(mounted, LEGACY);
        own(join(mounted, 'inside'), LEGACY);
        const { migration } = migrate({ dryRun: false });
        expect(migration.left).toEqual([{ path: mounted, reason: 'another filesystem' }]);
        expect(owners(mounted)).toEqual({
          '.': `${LEGACY}:${LEGACY} 1777`,
          inside: `${LEGACY}:${LEGACY} 644`,
        });
      } finally {
        Bun.spawnSync(['umount', mounted]);
      }
    },
  );
});
