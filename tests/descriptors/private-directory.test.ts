/**
 * Private directories and files: made 0700 and 0600 whatever the umask, narrowed to exactly that when
 * found otherwise, their parents left at the default mode, links and special files refused, and a file's
 * mode set without dropping the POSIX locks this process holds on it.
 */

import { dlopen, FFIType } from 'bun:ffi';
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldDirectory } from '../../src/descriptors/held-directory.ts';
import {
  makeFilePrivate,
  openPrivateDirectory,
  openPrivateDirectoryIn,
} from '../../src/descriptors/private-directory.ts';

let base: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mango-private-'));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function modeOf(path: string): string {
  return (statSync(path).mode & 0o7777).toString(8);
}

/** Runs `action` under `mask`, then puts the test process's umask back. */
function underUmask<T>(mask: number, action: () => T): T {
  const previous = process.umask(mask);
  try {
    return action();
  } finally {
    process.umask(previous);
  }
}

function codeOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'no error';
}

describe('openPrivateDirectory', () => {
  test('creates the directory 0700 under umask 0, and its missing parents with the default mode', () => {
    const path = join(base, 'parent', 'data');
    underUmask(0, () => openPrivateDirectory(path).close());
    expect(modeOf(path)).toBe('700');
    expect(modeOf(join(base, 'parent'))).toBe('777');
  });

  test('under a umask that takes the owner’s bits, still exactly 0700', () => {
    const path = join(base, 'data');
    underUmask(0o277, () => openPrivateDirectory(path).close());
    expect(modeOf(path)).toBe('700');
  });

  test('narrows an existing 0755 directory, keeps what is inside, and returns it held', () => {
    const path = join(base, 'data');
    mkdirSync(path, { mode: 0o755 });
    chmodSync(path, 0o755);
    writeFileSync(join(path, 'kept.txt'), 'kept', { mode: 0o644 });
    const held = openPrivateDirectory(path);
    try {
      expect(modeOf(path)).toBe('700');
      expect(held.entriesSync().map((entry) => entry.name)).toEqual(['kept.txt']);
      expect(modeOf(join(path, 'kept.txt'))).toBe('644');
    } finally {
      held.close();
    }
  });

  test('a relative path resolves against the working directory', () => {
    const previous = process.cwd();
    process.chdir(base);
    try {
      openPrivateDirectory('relative-data').close();
    } finally {
      process.chdir(previous);
    }
    expect(modeOf(join(base, 'relative-data'))).toBe('700');
  });

  test('the path itself may be the operator’s link: its target is the directory made private', () => {
    const target = join(base, 'real-data');
    mkdirSync(target, { mode: 0o755 });
    chmodSync(target, 0o755);
    symlinkSync(target, join(base, 'data'));
    openPrivateDirectory(join(base, 'data')).close();
    expect(modeOf(target)).toBe('700');
  });

  test('a file at the path fails with ENOTDIR and stays as it was', () => {
    writeFileSync(join(base, 'data'), 'a file', { mode: 0o644 });
    expect(codeOf(() => openPrivateDirectory(join(base, 'data')))).toBe('ENOTDIR');
    expect(modeOf(join(base, 'data'))).toBe('644');
  });
});

describe('openPrivateDirectoryIn', () => {
  let parent: HeldDirectory;
  beforeEach(() => {
    parent = HeldDirectory.open(base);
  });
  afterEach(() => parent.close());

  test('creates 0700 under umask 0 and narrows an existing 0755 one', () => {
    underUmask(0, () => openPrivateDirectoryIn(parent, 'made').close());
    mkdirSync(join(base, 'old'), { mode: 0o755 });
    chmodSync(join(base, 'old'), 0o755);
    openPrivateDirectoryIn(parent, 'old').close();
    expect([modeOf(join(base, 'made')), modeOf(join(base, 'old'))]).toEqual(['700', '700']);
  });

  test('a link at the name is refused and its target left alone; a file is ENOTDIR', () => {
    const outside = join(base, 'outside');
    mkdirSync(outside, { mode: 0o755 });
    chmodSync(outside, 0o755);
    symlinkSync(outside, join(base, 'link'));
    writeFileSync(join(base, 'file'), '');
    expect(codeOf(() => openPrivateDirectoryIn(parent, 'link'))).toBe('ELOOP');
    expect(codeOf(() => openPrivateDirectoryIn(parent, 'file'))).toBe('ENOTDIR');
    expect(modeOf(outside)).toBe('755');
  });
});

describe('makeFilePrivate', () => {
  let parent: HeldDirectory;
  beforeEach(() => {
    parent = HeldDirectory.open(base);
  });
  afterEach(() => parent.close());

  test('creates an empty 0600 file under umask 0; an existing one keeps its bytes and becomes 0600', () => {
    expect(underUmask(0, () => makeFilePrivate(parent, 'new.db', { create: true }))).toBe(true);
    writeFileSync(join(base, 'old.db'), 'old rows', { mode: 0o644 });
    expect(makeFilePrivate(parent, 'old.db', { create: true })).toBe(true);
    expect([modeOf(join(base, 'new.db')), modeOf(join(base, 'old.db'))]).toEqual(['600', '600']);
    expect([readFileSync(join(base, 'new.db'), 'utf8'), readFileSync(join(base, 'old.db'), 'utf8')]).toEqual([
      '',
      'old rows',
    ]);
  });

  test('a missing file that is not to be created: false, and nothing made', () => {
    expect(makeFilePrivate(parent, 'absent', { create: false })).toBe(false);
    expect(existsSync(join(base, 'absent'))).toBe(false);
  });

  test('a link, a directory or a FIFO at the name is refused with EINVAL, without waiting on the FIFO', () => {
    writeFileSync(join(base, 'target'), 'target', { mode: 0o644 });
    symlinkSync(join(base, 'target'), join(base, 'link'));
    mkdirSync(join(base, 'directory'));
    expect(Bun.spawnSync(['mkfifo', join(base, 'fifo')]).exitCode).toBe(0);
    for (const create of [false, true]) {
      expect(
        ['link', 'directory', 'fifo'].map((name) => codeOf(() => makeFilePrivate(parent, name, { create }))),
      ).toEqual(['EINVAL', 'EINVAL', 'EINVAL']);
    }
    expect(modeOf(join(base, 'target'))).toBe('644');
  });

  test('setting the mode keeps the POSIX locks this process holds on the file (SQLite’s)', () => {
    const path = join(base, 'locked.db');
    writeFileSync(path, 'rows', { mode: 0o644 });
    const fd = openSync(path, 'r+');
    try {
      expect(fcntlLock(fd, F_WRLCK)).toBe(0);
      expect(lockState(path)).toBe('held');
      expect(makeFilePrivate(parent, 'locked.db', { create: false })).toBe(true);
      expect(modeOf(path)).toBe('600');
      expect(lockState(path)).toBe('held');
      // What the O_PATH descriptor avoids: closing any readable descriptor of the file drops the lock.
      closeSync(openSync(path, 'r'));
      expect(lockState(path)).toBe('free');
    } finally {
      closeSync(fd);
    }
  });
});

const F_SETLK = 6;
const F_WRLCK = 1;

const libc = dlopen('libc.so.6', {
  fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
});

/** `fcntl(fd, F_SETLK, {type, SEEK_SET, 0, 0})`: a lock on the whole file, never waiting. */
function fcntlLock(fd: number, type: number): number {
  // struct flock on x86-64 and arm64: l_type (16 bits), l_whence (16), padding, l_start, l_len, l_pid.
  const lock = new Uint8Array(32);
  new DataView(lock.buffer).setInt16(0, type, true);
  return libc.symbols.fcntl(fd, F_SETLK, lock);
}

/** Whether another process can take a write lock on `path` now ("free") or is refused ("held"). */
function lockState(path: string): 'held' | 'free' {
  const child = Bun.spawnSync([
    process.execPath,
    '-e',
    `const { dlopen, FFIType } = require('bun:ffi');
     const { openSync } = require('node:fs');
     const libc = dlopen('libc.so.6', { fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 } });
     const lock = new Uint8Array(32);
     new DataView(lock.buffer).setInt16(0, ${F_WRLCK}, true);
     process.exit(libc.symbols.fcntl(openSync(${JSON.stringify(path)}, 'r+'), ${F_SETLK}, lock) === 0 ? 0 : 7);`,
  ]);
  if (child.exitCode === 0) return 'free';
  if (child.exitCode === 7) return 'held';
  throw new Error(`the lock probe failed: ${child.stderr.toString()}`);
}
