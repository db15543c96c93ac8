import { afterAll, describe, expect, test } from 'bun:test';
import { lstatSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import type { ShellSandbox } from '../../src/sandbox/shell-sandbox.ts';
import { createUnsandboxedShell } from '../../src/sandbox/unsandboxed-shell.ts';

const directory = mkdtempSync(join(tmpdir(), 'mango-file-owner-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const serverUid = process.getuid?.() ?? -1;

describe('handToSandboxUser', () => {
  test.skipIf(serverUid !== 0)(
    'as root: the file and a symlink itself (not its target) go to the given user’s uid',
    async () => {
      const handing: ShellSandbox = {
        ...createUnsandboxedShell(),
        fileOwner: async (userId) =>
          userId === 'alice' ? { uid: 61000, gid: 61001 } : { uid: 62000, gid: 62000 },
      };
      const file = join(directory, 'written.txt');
      const target = join(directory, 'target.txt');
      const link = join(directory, 'link');
      writeFileSync(file, 'x');
      writeFileSync(target, 'y');
      symlinkSync(target, link);
      await handToSandboxUser(file, 'alice', handing);
      await handToSandboxUser(link, 'alice', handing);
      expect([lstatSync(file).uid, lstatSync(file).gid]).toEqual([61000, 61001]);
      expect([lstatSync(link).uid, lstatSync(link).gid]).toEqual([61000, 61001]);
      expect(lstatSync(target).uid).toBe(0);
      await handToSandboxUser(target, 'bob', handing);
      expect([lstatSync(target).uid, lstatSync(target).gid]).toEqual([62000, 62000]);
    },
  );

  test('a sandbox that needs no hand-over leaves the owner alone', async () => {
    const file = join(directory, 'kept.txt');
    writeFileSync(file, 'x');
    await handToSandboxUser(file, 'alice', createUnsandboxedShell());
    expect(lstatSync(file).uid).toBe(serverUid);
  });

  test('a missing path is an error (ENOENT), not silence', async () => {
    const handing: ShellSandbox = {
      ...createUnsandboxedShell(),
      fileOwner: async () => ({ uid: 61000, gid: 61000 }),
    };
    await expect(handToSandboxUser(join(directory, 'missing'), 'alice', handing)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
