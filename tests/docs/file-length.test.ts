/**
 * No file in `src/` or `web/` is longer than 400 lines: a file that grows past that holds more than one
 * concept and is split along a seam. The counter is tested on planted files, so the check can fail.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { listRepositoryFiles } from './repository-files.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const LINE_LIMIT = 400;

/** Text files with more than `limit` lines, with their counts; binary files are skipped. */
function filesOverLimit(root: string, files: readonly string[], limit: number): [string, number][] {
  const over: [string, number][] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('\0')) continue;
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > limit) over.push([file, lines]);
  }
  return over;
}

describe('file length', () => {
  test(`no file in src/ or web/ has more than ${LINE_LIMIT} lines`, () => {
    const files = listRepositoryFiles(ROOT, ['src', 'web']);
    expect(files.length).toBeGreaterThan(250);
    expect(filesOverLimit(ROOT, files, LINE_LIMIT)).toEqual([]);
  });

  describe('the counter', () => {
    const root = mkdtempSync(join(tmpdir(), 'mango-length-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, 'src'));
    const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index}\n`).join('');
    writeFileSync(join(root, 'src', 'at-limit.ts'), lines(400));
    writeFileSync(join(root, 'src', 'over.ts'), lines(401));
    writeFileSync(join(root, 'src', 'over-no-newline.ts'), `${lines(400)}last`);
    writeFileSync(
      join(root, 'src', 'image.png'),
      Buffer.from([0x89, 0x50, 0x00, 0x0a].concat(Array(900).fill(0x0a))),
    );

    test('reports exactly the files past the limit, with their line counts', () => {
      const files = listRepositoryFiles(root, ['src']);
      expect(filesOverLimit(root, files, LINE_LIMIT)).toEqual([
        ['src/over-no-newline.ts', 401],
        ['src/over.ts', 401],
      ]);
    });
  });
});
