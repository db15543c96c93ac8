import { afterAll, beforeAll, expect, test } from 'bun:test';
import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileGrepPattern } from '../../../../src/tools/fs/grep/compile-grep-pattern.ts';
import { searchFileSync } from '../../../../src/tools/fs/grep/search-file.ts';
import { createTextSearcher } from '../../../../src/tools/fs/grep/text-searcher.ts';
import { makeTempDirectory } from '../../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-search-file-');
const searcher = createTextSearcher(compileGrepPattern('needle', false));
beforeAll(() => {
  writeFileSync(join(temp.path, 'real.txt'), 'needle\n');
  symlinkSync(join(temp.path, 'real.txt'), join(temp.path, 'swapped.txt'));
  symlinkSync(temp.path, join(temp.path, 'through-link'));
  writeFileSync(join(temp.path, 'big.txt'), `needle ${'x'.repeat(100)}\n`);
  writeFileSync(join(temp.path, 'binary.txt'), 'needle\0\n');
});
afterAll(() => temp.remove());

test.each([
  ['a file searched', 'real.txt', 'searched', 1],
  ['a path that turned into a symlink is not searched (links refused)', 'swapped.txt', 'unreadable', 0],
  ['a path through a symlinked directory is not searched', 'through-link/real.txt', 'unreadable', 0],
  ['over the size cap (bytes read, not stat)', 'big.txt', 'too_large', 0],
  ['binary', 'binary.txt', 'binary', 0],
  ['missing', 'missing.txt', 'unreadable', 0],
])('%s', (_name, file, status, matches) => {
  const outcome = searchFileSync(join(temp.path, file), searcher, {
    maxFileSizeBytes: 50,
    maxMatchesPerFile: 10,
  });
  expect([outcome.status as string, outcome.matches.length]).toEqual([status, matches]);
});

test.if(process.platform === 'linux')(
  'a file whose stat size is 0 but has content (procfs) is read to its end',
  () => {
    // By its real path: `/proc/self` is a link, and links are refused.
    const outcome = searchFileSync(
      `/proc/${process.pid}/status`,
      createTextSearcher(compileGrepPattern('^Name:', false)),
      { maxFileSizeBytes: 1 << 20, maxMatchesPerFile: 10 },
    );
    expect([outcome.status as string, outcome.matches.length]).toEqual(['searched', 1]);
  },
);

test('an empty file and a file exactly at the cap are searched', () => {
  writeFileSync(join(temp.path, 'empty.txt'), '');
  writeFileSync(join(temp.path, 'exact.txt'), `${'x'.repeat(43)}needle\n`);
  expect(
    searchFileSync(join(temp.path, 'empty.txt'), searcher, { maxFileSizeBytes: 50, maxMatchesPerFile: 10 })
      .status,
  ).toBe('searched');
  const exact = searchFileSync(join(temp.path, 'exact.txt'), searcher, {
    maxFileSizeBytes: 50,
    maxMatchesPerFile: 10,
  });
  expect([exact.status as string, exact.matches.length]).toEqual(['searched', 1]);
});
