import { describe, expect, test } from 'bun:test';
import {
  type Access,
  accessAt,
  computeOperatorReachableSet,
  computeReachableSet,
  isPathInside,
  protectedPathCovering,
  type ReachableSet,
  rootContaining,
  type Workspace,
  workspaceContaining,
} from '../../../src/tools/access/reachable-set.ts';

const PROTECTED = ['/srv/mango/data', '/opt/mango', '/proc', '/sys', '/dev', '/srv/workspaces'];
const personal: Workspace = { path: '/srv/workspaces/u1', access: 'read-write', kind: 'personal' };
const shared: Workspace = { path: '/projects/shared', access: 'read-only', kind: 'granted' };
const nestedWritable: Workspace = { path: '/projects/shared/drafts', access: 'read-write', kind: 'granted' };
const workspaces = [personal, shared, nestedWritable];

const unrestricted = computeReachableSet({
  workspaces,
  workingDirectory: '/srv/workspaces/u1/app',
  homeDirectory: personal.path,
  confined: false,
  protectedPaths: PROTECTED,
});
const confinedToApp = computeReachableSet({
  workspaces,
  workingDirectory: '/srv/workspaces/u1/app',
  homeDirectory: personal.path,
  confined: true,
  protectedPaths: PROTECTED,
});
const confinedToShared = computeReachableSet({
  workspaces,
  workingDirectory: '/projects/shared/docs',
  homeDirectory: personal.path,
  confined: true,
  protectedPaths: PROTECTED,
});
const operator = computeOperatorReachableSet('/home/op', '/home/op', PROTECTED);

describe('isPathInside', () => {
  test.each([
    ['/a/b', '/a', true],
    ['/a', '/a', true],
    ['/ab', '/a', false],
    ['/a/b', '/', true],
    ['/', '/', true],
    ['/a/b', '/a/b/c', false],
  ])('%s inside %s: %p', (candidate, directory, expected) => {
    expect(isPathInside(candidate, directory)).toBe(expected);
  });
});

describe('computeReachableSet', () => {
  test('an unrestricted chat reaches every workspace with its own access', () => {
    expect(unrestricted).toEqual({
      workingDirectory: '/srv/workspaces/u1/app',
      homeDirectory: '/srv/workspaces/u1',
      roots: [
        { path: '/srv/workspaces/u1', access: 'read-write' },
        { path: '/projects/shared', access: 'read-only' },
        { path: '/projects/shared/drafts', access: 'read-write' },
      ],
      protectedPaths: PROTECTED,
    });
  });
  test('a confined chat reaches only its working directory, with the access of the workspace holding it', () => {
    expect(confinedToApp.roots).toEqual([{ path: '/srv/workspaces/u1/app', access: 'read-write' }]);
    expect(confinedToShared.roots).toEqual([{ path: '/projects/shared/docs', access: 'read-only' }]);
  });
  test('the protected list is copied: a later change to the input does not widen or narrow the set', () => {
    const input = ['/proc'];
    const set = computeReachableSet({
      workspaces: [personal],
      workingDirectory: personal.path,
      homeDirectory: personal.path,
      confined: true,
      protectedPaths: input,
    });
    input.push('/srv');
    expect(set.protectedPaths).toEqual(['/proc']);
  });
  test('a working directory outside every workspace fails closed', () => {
    expect(() =>
      computeReachableSet({
        workspaces,
        workingDirectory: '/srv/workspaces/u2',
        homeDirectory: personal.path,
        confined: true,
        protectedPaths: PROTECTED,
      }),
    ).toThrow(
      'The working directory /srv/workspaces/u2 lies outside every workspace of this user; no tool may run there.',
    );
  });
  test('workspaceContaining picks the deepest workspace', () => {
    expect(workspaceContaining(workspaces, '/projects/shared/drafts/a.md')).toBe(nestedWritable);
    expect(workspaceContaining(workspaces, '/projects/shared/a.md')).toBe(shared);
    expect(workspaceContaining(workspaces, '/projects/sharedx')).toBeUndefined();
  });
});

describe('accessAt', () => {
  const cases: [string, ReachableSet, string, Access | undefined][] = [
    ['personal workspace file, unrestricted', unrestricted, '/srv/workspaces/u1/notes.md', 'read-write'],
    ['read-only grant', unrestricted, '/projects/shared/a.md', 'read-only'],
    [
      'writable grant nested in a read-only one: deepest wins',
      unrestricted,
      '/projects/shared/drafts/x',
      'read-write',
    ],
    ["another user's personal workspace", unrestricted, '/srv/workspaces/u2/secret', undefined],
    ['the workspaces directory itself', unrestricted, '/srv/workspaces', undefined],
    ['a sibling with a common prefix', unrestricted, '/srv/workspaces/u1x/file', undefined],
    ['the data directory', unrestricted, '/srv/mango/data/mango.db', undefined],
    ['outside every workspace', unrestricted, '/etc/passwd', undefined],
    [
      'confined: inside the working directory',
      confinedToApp,
      '/srv/workspaces/u1/app/src/a.ts',
      'read-write',
    ],
    ['confined: elsewhere in the same workspace', confinedToApp, '/srv/workspaces/u1/notes.md', undefined],
    ['confined: another workspace', confinedToApp, '/projects/shared/a.md', undefined],
    ['confined to a read-only workspace', confinedToShared, '/projects/shared/docs/x.md', 'read-only'],
    ['operator: anywhere else', operator, '/etc/passwd', 'read-write'],
    ['operator: /proc', operator, '/proc/self/environ', undefined],
    ['operator: /proc itself', operator, '/proc', undefined],
    ['operator: /sys', operator, '/sys/kernel', undefined],
    ['operator: /dev', operator, '/dev/null', undefined],
    ['operator: the installation directory', operator, '/opt/mango/web/app.js', undefined],
    ['operator: the data directory', operator, '/srv/mango/data', undefined],
    [
      'operator: a personal workspace (inside the workspaces directory)',
      operator,
      '/srv/workspaces/u1/a',
      undefined,
    ],
    ['operator: /process is not /proc', operator, '/process/x', 'read-write'],
  ];
  test.each(cases)('%s', (_name, set, real, expected) => {
    expect(accessAt(set, real)).toBe(expected);
  });
});

describe('protectedPathCovering and rootContaining', () => {
  test.each([
    [unrestricted, '/srv/workspaces/u1/a', undefined],
    [unrestricted, '/srv/workspaces/u2/a', '/srv/workspaces'],
    [unrestricted, '/proc/1/environ', '/proc'],
    [operator, '/srv/workspaces/u1/a', '/srv/workspaces'],
    [operator, '/opt/mango', '/opt/mango'],
    [operator, '/opt/mangos', undefined],
  ] as [ReachableSet, string, string | undefined][])('%#: %s is covered by %s', (set, real, expected) => {
    expect(protectedPathCovering(set, real)).toBe(expected);
  });
  test('rootContaining returns the deepest root', () => {
    expect(rootContaining(unrestricted, '/projects/shared/drafts/a')).toEqual({
      path: '/projects/shared/drafts',
      access: 'read-write',
    });
    expect(rootContaining(unrestricted, '/projects')).toBeUndefined();
    expect(rootContaining(operator, '/anything')).toEqual({ path: '/', access: 'read-write' });
  });
});
