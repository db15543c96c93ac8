import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeldDirectory } from '../../../src/descriptors/held-directory.ts';
import { walkTree } from '../../../src/tools/fs/walk-tree.ts';
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
