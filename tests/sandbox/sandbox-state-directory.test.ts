import { afterAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import {
  openSandboxStateDirectory,
  type SandboxIdentity,
} from '../../src/sandbox/sandbox-state-directory.ts';

const parent = mkdtempSync(join(tmpdir(), 'mango-state-parent-'));
afterAll(() => rmSync(parent, { recursive: true, force: true }));

const identity = (uid: number): SandboxIdentity => ({
  uid,
  gid: uid,
  groups: [],
  user: 'sandbox',
  home: '/home/sandbox',
});

/** The state directory of `uid` with that identity's account files. */
function open(uid: number) {
  const state = openSandboxStateDirectory(identity(uid), parent);
  return { ...state, ...state.accounts(identity(uid)) };
}

describe('the sandbox state directory', () => {
  test('holds the synthesized accounts (readable) and the mode-000 covers; one per identity, reused', () => {
    const state = open(61000);
    expect(state.path).toBe(join(parent, 'mango-sandbox-61000-61000'));
    expect(readFileSync(state.passwd, 'utf8')).toBe(
      'root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n' +
        'sandbox:x:61000:61000:Mango shell sandbox:/home/sandbox:/bin/bash\n' +
        'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
    );
    expect(readFileSync(state.group, 'utf8')).toBe('root:x:0:\nsandbox:x:61000:\nnogroup:x:65534:\n');
    expect(statSync(state.path).mode & 0o777).toBe(0o755);
    expect(statSync(state.passwd).mode & 0o777).toBe(0o644);
    expect(readFileSync(state.waiter, 'utf8')).toBe(
      readFileSync(join(import.meta.dir, '..', '..', 'src', 'sandbox', 'sandbox-waiter.pl'), 'utf8'),
    );
    expect(statSync(state.waiter).mode & 0o777).toBe(0o644);
    expect(statSync(state.emptyFile).mode & 0o777).toBe(0);
    expect(statSync(state.emptyDirectory).mode & 0o777).toBe(0);
    expect(open(61000).path).toBe(state.path);
  });

  test('opening again never replaces a file another sandbox may be binding at that moment', () => {
    const first = open(61005);
    const inodes = () =>
      [first.passwd, first.group, first.waiter, first.emptyFile, first.emptyDirectory].map(
        (path) => statSync(path).ino,
      );
    const before = inodes();
    const again = open(61005);
    again.ensure();
    expect([again.passwd, again.group]).toEqual([first.passwd, first.group]);
    expect(inodes()).toEqual(before);
    // Only the five files: no temporary name is left behind.
    expect(readdirSync(first.path).sort()).toEqual(
      [
        basename(first.passwd),
        basename(first.group),
        basename(first.waiter),
        'covered-directory',
        'covered-file',
      ].sort(),
    );
  });

  test('the account files are named after their content, so other text never overwrites them', () => {
    const state = open(61006);
    expect(basename(state.passwd)).toMatch(/^passwd-[0-9a-f]{16}$/);
    expect(basename(state.group)).toMatch(/^group-[0-9a-f]{16}$/);
    expect(state.passwd).not.toBe(open(61007).passwd);
  });

  test('ensure() recreates what a temp cleaner removed', () => {
    const state = open(61001);
    rmSync(state.passwd);
    rmSync(state.emptyDirectory, { recursive: true, force: true });
    state.ensure();
    state.accounts(identity(61001));
    expect(readFileSync(state.passwd, 'utf8')).toContain('sandbox:x:61001:61001:');
    expect(statSync(state.emptyDirectory).mode & 0o777).toBe(0);
  });

  test('a cover that lost its mode gets mode 000 again; a link planted at a cover is refused, not followed', () => {
    const state = open(61008);
    chmodSync(state.emptyFile, 0o644);
    chmodSync(state.emptyDirectory, 0o755);
    state.ensure();
    expect(statSync(state.emptyFile).mode & 0o7777).toBe(0);
    expect(statSync(state.emptyDirectory).mode & 0o7777).toBe(0);
    const target = join(parent, 'cover-target');
    mkdirSync(target, { mode: 0o755 });
    rmSync(state.emptyDirectory, { recursive: true, force: true });
    symlinkSync(target, state.emptyDirectory);
    expect(() => state.ensure()).toThrow(
      `the sandbox state directory is unsafe: ${state.emptyDirectory} is not a directory.`,
    );
    expect(statSync(target).mode & 0o777).toBe(0o755);
  });

  test('a planted symlink or a directory others can write is refused, naming it', () => {
    const target = join(parent, 'elsewhere');
    mkdirSync(target);
    symlinkSync(target, join(parent, 'mango-sandbox-61002-61002'));
    expect(() => open(61002)).toThrow(
      `the sandbox state directory is unsafe: ${join(parent, 'mango-sandbox-61002-61002')} is not a directory.`,
    );
    const writable = join(parent, 'mango-sandbox-61003-61003');
    mkdirSync(writable);
    chmodSync(writable, 0o777);
    expect(() => open(61003)).toThrow('is writable by others (mode 777).');
  });

  test.skipIf(process.getuid?.() !== 0)("another user's directory is refused", () => {
    const foreign = join(parent, 'mango-sandbox-61004-61004');
    mkdirSync(foreign, { mode: 0o755 });
    chownSync(foreign, 1000, 1000);
    expect(() => open(61004)).toThrow(`${foreign} belongs to uid 1000, not to this server.`);
  });
});
