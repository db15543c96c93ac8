import { afterEach, beforeEach, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldDirectory } from '../../src/descriptors/held-directory.ts';
import { O_RDONLY } from '../../src/descriptors/linux-file-calls.ts';

let base: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-open-real-')));
  mkdirSync(join(base, 'dir'));
  writeFileSync(join(base, 'dir', 'file.txt'), 'inside');
  symlinkSync(join(base, 'dir'), join(base, 'dir-link'));
  symlinkSync(join(base, 'dir', 'file.txt'), join(base, 'file-link'));
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

async function codeOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'no error';
}

test('reads the file at a real path through the descriptor', async () => {
  const handle = await HeldDirectory.openPathHandle(join(base, 'dir', 'file.txt'), O_RDONLY);
  expect(await handle.readFile('utf8')).toBe('inside');
  await handle.close();
});

test('a link on a directory component or on the last one fails with ELOOP', async () => {
  expect(await codeOf(() => HeldDirectory.openPathHandle(join(base, 'dir-link', 'file.txt'), O_RDONLY))).toBe(
    'ELOOP',
  );
  expect(await codeOf(() => HeldDirectory.openPathHandle(join(base, 'file-link'), O_RDONLY))).toBe('ELOOP');
  expect(await codeOf(() => HeldDirectory.openPathHandle('dir/file.txt', O_RDONLY))).toBe('EINVAL');
});
