/**
 * `prepareDataDirectory`: the data directory is made 0700 (or narrowed to it), and one that cannot be
 * used stops the start with a DataDirectoryError that names it, MANGO_DATA_DIR and the cause.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirectoryError, prepareDataDirectory } from '../../src/db/data-directory.ts';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mango-data-directory-'));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function modeOf(path: string): string {
  return (statSync(path).mode & 0o7777).toString(8);
}

test('a missing data directory is made 0700; a 0755 one is narrowed to 0700', () => {
  prepareDataDirectory(join(base, 'new'));
  mkdirSync(join(base, 'old'), { mode: 0o755 });
  chmodSync(join(base, 'old'), 0o755);
  prepareDataDirectory(join(base, 'old'));
  expect([modeOf(join(base, 'new')), modeOf(join(base, 'old'))]).toEqual(['700', '700']);
});

test('a file where the data directory should be: DataDirectoryError with its path and the cause', () => {
  const path = join(base, 'data');
  writeFileSync(path, 'not a directory', { mode: 0o644 });
  let caught: unknown;
  try {
    prepareDataDirectory(path);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DataDirectoryError);
  expect({ code: (caught as DataDirectoryError).code, message: (caught as Error).message }).toEqual({
    code: 'data_directory_unusable',
    message: `The data directory ${path} (MANGO_DATA_DIR) cannot be made the server's own (mode 0700): ENOTDIR: not a directory, openat2 "${path}"`,
  });
  expect(modeOf(path)).toBe('644');
});
