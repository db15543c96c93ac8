import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeldDirectory } from '../../../src/descriptors/held-directory.ts';
import { walkListings, walkTree } from '../../../src/tools/fs/walk-tree.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-walk-tree-');
const tree = join(temp.path, 'tree');
const outside = join(temp.path, 'outside');

beforeAll(() => {
  mkdirSync(join(tree, 'b', 'deep'), { recursive: true });
  mkdirSync(join(tree, 'a'));
  mkdirSync(outside);
  writeFileSync(join(tree, 'z.txt'), 'z');
  writeFileSync(join(tree, 'a', 'x.txt'), 'x');
  writeFileSync(join(tree, 'b', 'deep', 'y.txt'), 'y');
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  symlinkSync(outside, join(tree, 'link'));
  buildStill();
});
afterAll(() => temp.remove());

function walked(options: Parameters<typeof walkTree>[1] = {}): string[] {
  const root = HeldDirectory.open(tree);
  try {
    return [...walkTree(root, options)].map((entry) => `${entry.relative}:${entry.kind}`);
  } finally {
    root.close();
  }
}

test('entries of a directory in name order, then its subdirectories; links yielded, never followed', () => {
  expect(walked()).toEqual([
    'a:directory',
    'b:directory',
    'link:link',
    'z.txt:file',
    'a/x.txt:file',
    'b/deep:directory',
    'b/deep/y.txt:file',
  ]);
});

test('skipsName and descends prune the walk', () => {
  expect(
    walked({ skipsName: (name) => name === 'a', descends: (entry) => entry.relative !== 'b/deep' }),
  ).toEqual(['b:directory', 'link:link', 'z.txt:file', 'b/deep:directory']);
});

test('a directory swapped for a link after the listing is not entered', () => {
  const root = HeldDirectory.open(tree);
  const seen: string[] = [];
  try {
    for (const entry of walkTree(root)) {
      seen.push(entry.relative);
      if (entry.relative === 'z.txt') {
        // Both subdirectories were listed as directories; now `a` names a link to the outside.
        renameSync(join(tree, 'a'), join(temp.path, 'a-moved'));
        symlinkSync(outside, join(tree, 'a'));
      }
    }
  } finally {
    root.close();
  }
  expect(seen).toEqual(['a', 'b', 'link', 'z.txt', 'b/deep', 'b/deep/y.txt']);
});

/** A tree like `tree` that no test changes. */
const still = join(temp.path, 'still');

function buildStill(): void {
  mkdirSync(join(still, 'b', 'deep'), { recursive: true });
  mkdirSync(join(still, 'a'));
  writeFileSync(join(still, 'z.txt'), 'z');
  writeFileSync(join(still, 'a', 'x.txt'), 'x');
  writeFileSync(join(still, 'b', 'deep', 'y.txt'), 'y');
  symlinkSync(outside, join(still, 'link'));
}

test('walkListings: a directory at a time, only the names kept, each list in code-unit order', () => {
  const root = HeldDirectory.open(still);
  try {
    const listings = [
      ...walkListings(root, {
        keeps: (relative, _name, kind) => kind !== 'directory' && relative !== 'z.txt',
      }),
    ].map(({ relative, names, kinds, subdirectories }) => ({
      relative,
      names,
      kinds: [...kinds],
      subdirectories,
    }));
    expect(listings).toEqual([
      { relative: '', names: ['link'], kinds: [['link', 'link']], subdirectories: ['a', 'b'] },
      { relative: 'a', names: ['x.txt'], kinds: [], subdirectories: [] },
      { relative: 'b', names: [], kinds: [], subdirectories: ['deep'] },
      { relative: 'b/deep', names: ['y.txt'], kinds: [], subdirectories: [] },
    ]);
  } finally {
    root.close();
  }
});

test('walkListings asks descends once a listing was taken in, and closes what it opened when stopped', () => {
  const before = readdirSync('/proc/self/fd').length;
  const root = HeldDirectory.open(still);
  const asked: string[] = [];
  let taken = 0;
  try {
    for (const listing of walkListings(root, {
      keeps: () => true,
      descends: (relative) => {
        // Each directory's listing reached the caller before its subdirectories are decided.
        asked.push(`${relative} after ${taken}`);
        return relative !== 'a';
      },
    })) {
      taken += 1;
      if (listing.relative === 'b/deep') break;
    }
  } finally {
    root.close();
  }
  expect(asked).toEqual(['a after 1', 'b after 1', 'b/deep after 2']);
  expect(readdirSync('/proc/self/fd').length).toBe(before);
});
