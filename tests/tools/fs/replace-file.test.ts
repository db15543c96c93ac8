import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '../../../src/tools/fs/replace-file.ts';
import { makeTempDirectory, makeToolContext } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-replace-');
const ws = join(temp.path, 'ws');
const outside = join(temp.path, 'outside');
beforeAll(() => {
  mkdirSync(ws);
  mkdirSync(outside);
  symlinkSync(outside, join(ws, 'link'));
});
afterAll(() => temp.remove());

const context = () => makeToolContext({ binding: { workingDirectory: ws, confined: true } });

test('creates missing parent directories and the file, and reports its size and mtime', async () => {
  const target = join(ws, 'a', 'b', 'new.txt');
  const call = context();
  const written = await replaceFile(
    target,
    new TextEncoder().encode('hello\n'),
    undefined,
    call,
    'a/b/new.txt',
    undefined,
  );
  expect(written.real).toBe(target);
  expect(readFileSync(target, 'utf8')).toBe('hello\n');
  const stats = statSync(target);
  expect(written).toEqual({ real: target, size: 6, mtimeMs: stats.mtimeMs });
});

test('a directory on the way that became a link: nothing is created through it, nothing is written', async () => {
  // The path was decided while `link` was a directory of the workspace; by now it points outside.
  const target = join(ws, 'link', 'new', 'deeper', 'file.txt');
  await expect(
    replaceFile(
      target,
      new TextEncoder().encode('x'),
      undefined,
      context(),
      'link/new/deeper/file.txt',
      undefined,
    ),
  ).rejects.toMatchObject({
    classification: 'permission_denied',
    message:
      'Cannot write "link/new/deeper/file.txt": the path changed while the tool was using it (a file or directory on it was moved, or replaced by a link), so nothing was done there. Check it with list_directory and try again.',
  });
  expect(readdirSync(outside)).toEqual([]);
});
