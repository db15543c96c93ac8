import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldDirectory } from '../../src/descriptors/held-directory.ts';
import { HeldEntry } from '../../src/descriptors/held-entry.ts';

const asRoot = process.getuid?.() === 0;

let base: string;
let outside: string;
let root: HeldDirectory;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-held-entry-')));
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'mango-held-entry-outside-')));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  chmodSync(join(outside, 'secret.txt'), 0o4755);
  mkdirSync(join(base, 'ws', 'inner'), { recursive: true });
  writeFileSync(join(base, 'ws', 'file.txt'), 'inside');
  symlinkSync(join(outside, 'secret.txt'), join(base, 'ws', 'out'));
  Bun.spawnSync(['mkfifo', join(base, 'ws', 'pipe')]);
  root = HeldDirectory.open(join(base, 'ws'));
});

afterEach(() => {
  root.close();
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function codeOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'no error';
}

function ownerAndMode(path: string): [number, number, number] {
  const stats = lstatSync(path);
  return [stats.uid, stats.gid, stats.mode & 0o7777];
}

describe('HeldEntry', () => {
  test('holds a symlink as the link: its stat, never its target', () => {
    const entry = HeldEntry.open(root, 'out');
    try {
      expect(entry.stat().isSymbolicLink()).toBe(true);
      expect(entry.path).toBe(join(base, 'ws', 'out'));
      expect(codeOf(() => entry.changeMode(0o700))).toBe('ENOTSUP');
    } finally {
      entry.close();
    }
    expect(statSync(join(outside, 'secret.txt')).mode & 0o7777).toBe(0o4755);
  });

  test('refuses what is not one name, and a name that is gone', () => {
    expect(codeOf(() => HeldEntry.open(root, 'inner/x'))).toBe('EINVAL');
    expect(codeOf(() => HeldEntry.open(root, '..'))).toBe('EINVAL');
    expect(codeOf(() => HeldEntry.open(root, 'missing'))).toBe('ENOENT');
  });

  test('holds a FIFO without opening it for reading or writing', () => {
    const entry = HeldEntry.open(root, 'pipe');
    try {
      expect(entry.stat().isFIFO()).toBe(true);
      entry.changeMode(0o600);
    } finally {
      entry.close();
    }
    expect(lstatSync(join(base, 'ws', 'pipe')).mode & 0o7777).toBe(0o600);
  });

  test('changes the mode of the object it holds, not what was renamed over its name', () => {
    const entry = HeldEntry.open(root, 'file.txt');
    try {
      renameSync(join(base, 'ws', 'file.txt'), join(base, 'ws', 'inner', 'moved.txt'));
      writeFileSync(join(base, 'ws', 'file.txt'), 'planted');
      chmodSync(join(base, 'ws', 'file.txt'), 0o644);
      entry.changeMode(0o4711);
    } finally {
      entry.close();
    }
    expect(lstatSync(join(base, 'ws', 'inner', 'moved.txt')).mode & 0o7777).toBe(0o4711);
    expect(lstatSync(join(base, 'ws', 'file.txt')).mode & 0o7777).toBe(0o644);
  });

  test('a closed entry refuses to act', () => {
    const entry = HeldEntry.open(root, 'file.txt');
    entry.close();
    entry.close();
    expect(entry.fd).toBe(-1);
    expect(codeOf(() => entry.stat())).toBe('EBADF');
    expect(codeOf(() => entry.changeOwner(1, 1))).toBe('EBADF');
  });

  test.skipIf(!asRoot)('as root, re-owns a symlink itself and a file, never a link target', () => {
    chownSync(join(outside, 'secret.txt'), 0, 0);
    chmodSync(join(outside, 'secret.txt'), 0o4755);
    const link = HeldEntry.open(root, 'out');
    const file = HeldEntry.open(root, 'file.txt');
    try {
      link.changeOwner(61000, 61001);
      file.changeOwner(61002, 61003);
    } finally {
      link.close();
      file.close();
    }
    expect(ownerAndMode(join(base, 'ws', 'out')).slice(0, 2)).toEqual([61000, 61001]);
    expect(ownerAndMode(join(outside, 'secret.txt'))).toEqual([0, 0, 0o4755]);
    expect(ownerAndMode(join(base, 'ws', 'file.txt')).slice(0, 2)).toEqual([61002, 61003]);
  });
});
