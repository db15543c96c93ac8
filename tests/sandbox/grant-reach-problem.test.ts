/**
 * The reach check's rules over stated modes (an injected `lstat`): the kernel's class order, what an
 * ancestor and a read-only or read-write grant need, components that changed, and the messages.
 */
import { describe, expect, test } from 'bun:test';
import {
  ancestorsOf,
  type DirectoryStats,
  describeGrantReachProblem,
  findGrantReachProblem,
  type SandboxCaller,
} from '../../src/sandbox/grant-reach-problem.ts';

const caller: SandboxCaller = { uid: 1900000005, gid: 1900000005, groups: [1900000000, 1900000009] };

type Entry = { mode: number; uid?: number; gid?: number; type?: 'directory' | 'link' | 'file' };

/** An `lstat` over a table of paths; a path not in it does not exist. */
function statOf(table: Record<string, Entry>): (path: string) => DirectoryStats {
  return (path) => {
    const entry = table[path];
    if (entry === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    const type = entry.type ?? 'directory';
    return {
      mode: entry.mode,
      uid: entry.uid ?? 0,
      gid: entry.gid ?? 0,
      isDirectory: () => type === 'directory',
      isSymbolicLink: () => type === 'link',
    };
  };
}

const open = { '/': { mode: 0o755 }, '/srv': { mode: 0o755 } };

describe('findGrantReachProblem', () => {
  test('the ancestors run from / down to the parent', () => {
    expect(ancestorsOf('/srv/a/b')).toEqual(['/', '/srv', '/srv/a']);
    expect(ancestorsOf('/srv')).toEqual(['/']);
  });

  test('root-owned 0755 ancestors pass by the others’ bits; a 0777 grant passes read-write', () => {
    const stat = statOf({ ...open, '/srv/site': { mode: 0o777 } });
    expect(findGrantReachProblem('/srv/site', caller, 'read-write', stat)).toBeUndefined();
  });

  test('a read-only grant needs r-x, a read-write one rwx', () => {
    const stat = statOf({ ...open, '/srv/data': { mode: 0o755 } });
    expect(findGrantReachProblem('/srv/data', caller, 'read-only', stat)).toBeUndefined();
    expect(findGrantReachProblem('/srv/data', caller, 'read-write', stat)).toEqual({
      kind: 'permission',
      directory: '/srv/data',
      role: 'granted',
      mode: 0o755,
      owner: 0,
      group: 0,
      applies: 'other',
      needs: 'rwx',
    });
    const readable = statOf({ ...open, '/srv/data': { mode: 0o751 } });
    expect(findGrantReachProblem('/srv/data', caller, 'read-only', readable)).toMatchObject({
      applies: 'other',
      needs: 'r-x',
    });
  });

  test('the first ancestor that fails is named, even when a later one fails too', () => {
    const stat = statOf({
      '/': { mode: 0o755 },
      '/srv': { mode: 0o700 },
      '/srv/a': { mode: 0o700 },
      '/srv/a/b': { mode: 0o777 },
    });
    expect(findGrantReachProblem('/srv/a/b', caller, 'read-only', stat)).toEqual({
      kind: 'permission',
      directory: '/srv',
      role: 'ancestor',
      mode: 0o700,
      owner: 0,
      group: 0,
      applies: 'other',
      needs: '--x',
    });
  });

  test('the owner’s bits decide for the owner, the group’s for a member, as the kernel does', () => {
    const owned = statOf({ ...open, '/srv/own': { mode: 0o077, uid: caller.uid } });
    expect(findGrantReachProblem('/srv/own', caller, 'read-only', owned)).toMatchObject({ applies: 'owner' });
    const supplementary = statOf({ ...open, '/srv/g': { mode: 0o707, gid: 1900000009 } });
    expect(findGrantReachProblem('/srv/g', caller, 'read-only', supplementary)).toMatchObject({
      applies: 'group',
    });
    const primary = statOf({ ...open, '/srv/p': { mode: 0o070, gid: caller.gid } });
    expect(findGrantReachProblem('/srv/p', caller, 'read-write', primary)).toBeUndefined();
    const stranger = statOf({ ...open, '/srv/s': { mode: 0o770, gid: 1234 } });
    expect(findGrantReachProblem('/srv/s', caller, 'read-only', stranger)).toMatchObject({
      applies: 'other',
    });
  });

  test('a link, a file or nothing where a directory was is reported as changed', () => {
    const link = statOf({ ...open, '/srv/l': { mode: 0o777, type: 'link' } });
    expect(findGrantReachProblem('/srv/l/x', caller, 'read-only', link)).toEqual({
      kind: 'changed',
      directory: '/srv/l',
      found: 'a symbolic link',
    });
    const file = statOf({ ...open, '/srv/f': { mode: 0o777, type: 'file' } });
    expect(findGrantReachProblem('/srv/f', caller, 'read-only', file)).toEqual({
      kind: 'changed',
      directory: '/srv/f',
      found: 'not a directory',
    });
    expect(findGrantReachProblem('/srv/gone', caller, 'read-only', statOf(open))).toEqual({
      kind: 'changed',
      directory: '/srv/gone',
      found: 'nothing',
    });
  });

  test('an lstat that fails otherwise is not taken for an answer', () => {
    const failing = () => {
      throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
    };
    expect(() => findGrantReachProblem('/srv/x', caller, 'read-only', failing)).toThrow('EIO: i/o error');
  });
});

describe('describeGrantReachProblem', () => {
  const who = "the user's commands run as uid 1900000005 (gid 1900000005, groups 1900000000, 1900000009)";

  test('an ancestor: the class that applies is the one to change', () => {
    expect(
      describeGrantReachProblem(
        {
          kind: 'permission',
          directory: '/srv',
          role: 'ancestor',
          mode: 0o704,
          owner: 0,
          group: 1900000000,
          applies: 'group',
          needs: '--x',
        },
        caller,
        1900000009,
        'read-only',
      ),
    ).toBe(
      `${who} and cannot pass /srv (mode 0704, owner 0:1900000000; its group's bits apply, as the group is one of theirs): every directory above a grant must let them through (--x). ` +
        'Let them pass: `chmod g+x /srv` (--fix-owner changes only the granted directory, never the directories above it).',
    );
  });

  test('a granted directory the uid owns: its owner’s bits, not the group’s, are the fix', () => {
    expect(
      describeGrantReachProblem(
        {
          kind: 'permission',
          directory: '/srv/own',
          role: 'granted',
          mode: 0o577,
          owner: caller.uid,
          group: 0,
          applies: 'owner',
          needs: 'rwx',
        },
        caller,
        1900000009,
        'read-write',
      ),
    ).toBe(
      `${who} and cannot read, write and enter /srv/own (mode 0577, owner 1900000005:0; its owner's bits apply, as the uid owns it), which a read-write grant needs (rwx). ` +
        'Give its owner access: `chmod u+rwx /srv/own`.',
    );
  });

  test('a path the shell would split is quoted in the commands', () => {
    const text = describeGrantReachProblem(
      {
        kind: 'permission',
        directory: "/srv/bob's files",
        role: 'granted',
        mode: 0o700,
        owner: 0,
        group: 0,
        applies: 'other',
        needs: 'r-x',
      },
      caller,
      1900000009,
      'read-only',
    );
    expect(text).toEndWith(
      "Give the grant's group access: `chgrp -R 1900000009 '/srv/bob'\\''s files' && chmod -R g+rX '/srv/bob'\\''s files' && " +
        "find '/srv/bob'\\''s files' -type d -exec chmod g+s {} +`, or run again with --fix-owner.",
    );
  });

  test('a component that changed', () => {
    expect(
      describeGrantReachProblem(
        { kind: 'changed', directory: '/srv/l', found: 'a symbolic link' },
        caller,
        1,
        'read-only',
      ),
    ).toBe(
      '/srv/l is a symbolic link now, though the path resolved through it a moment ago; check what changed it and run the command again.',
    );
  });
});
