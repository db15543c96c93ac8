import { afterEach, beforeEach, expect, test } from 'bun:test';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../../../src/tools/fs/atomic-write.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

let temp: ReturnType<typeof makeTempDirectory>;
beforeEach(() => {
  temp = makeTempDirectory('mango-atomic-');
});
afterEach(() => temp.remove());

const allow = async () => {};

test('create never clobbers a file that appeared meanwhile, and leaves no temp file', async () => {
  const target = join(temp.path, 'new.txt');
  writeFileSync(target, 'someone else');
  await expect(
    writeFileAtomically(target, new TextEncoder().encode('mine'), { create: true, verifyTarget: allow }),
  ).rejects.toMatchObject({ code: 'EEXIST' });
  expect(readFileSync(target, 'utf8')).toBe('someone else');
  expect(readdirSync(temp.path)).toEqual(['new.txt']);
});

test('a refused target aborts the write and keeps the old file', async () => {
  const target = join(temp.path, 'old.txt');
  writeFileSync(target, 'old');
  const refuse = async () => {
    throw new Error('refused');
  };
  await expect(
    writeFileAtomically(target, new TextEncoder().encode('new'), { verifyTarget: refuse }),
  ).rejects.toThrow('refused');
  expect(readFileSync(target, 'utf8')).toBe('old');
  expect(readdirSync(temp.path)).toEqual(['old.txt']);
});
