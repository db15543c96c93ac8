import { describe, expect, test } from 'bun:test';
import {
  buildMountPlan as buildHeldMountPlan,
  describePlan,
  type HostEntryKind,
  type HostLayout,
  type MountPlanInput,
} from '../../src/sandbox/bubblewrap-mount-plan.ts';
import { computeOperatorReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';

/** The plan as text: binds by object show their source path (what the pool keys on). */
function buildMountPlan(input: MountPlanInput, host: HostLayout): string[] {
  return describePlan(buildHeldMountPlan(input, host));
}

/** A host with merged /usr, a few /etc files, and the given extra entries. */
function fakeHost(entries: Record<string, HostEntryKind>): HostLayout {
  const links: Record<string, string> = {
    '/bin': 'usr/bin',
    '/lib': 'usr/lib',
    '/lib64': 'usr/lib64',
    '/sbin': 'usr/sbin',
  };
  const kinds: Record<string, HostEntryKind> = {
    '/bin': 'symlink',
    '/lib': 'symlink',
    '/lib64': 'symlink',
    '/sbin': 'symlink',
    '/etc/hosts': 'file',
    '/etc/ssl/certs': 'directory',
    ...entries,
  };
  return { kind: (path) => kinds[path] ?? 'missing', readLink: (path) => links[path] as string };
}

const files = {
  passwd: '/s/passwd',
  group: '/s/group',
  waiter: '/s/waiter',
  emptyFile: '/s/file',
  emptyDirectory: '/s/dir',
};

function input(reachable: ReachableSet, deniedPaths: string[] = []): MountPlanInput {
  return {
    reachable,
    cwd: reachable.workingDirectory,
    deniedPaths,
    home: '/home/sandbox',
    files,
    tmpBytes: 100,
    homeBytes: 50,
    shmBytes: 25,
  };
}

const SYSTEM_PREFIX = [
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/bin',
  '/bin',
  '--symlink',
  'usr/sbin',
  '/sbin',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--size',
  '100',
  '--perms',
  '1777',
  '--tmpfs',
  '/tmp',
];

describe('buildMountPlan', () => {
  test('a user chat: system view, /etc allowlist, private tmp and home, roots by access, protected and denied paths covered', () => {
    const reachable: ReachableSet = {
      workingDirectory: '/w/alice',
      homeDirectory: '/w/alice',
      roots: [
        { path: '/w/alice', access: 'read-write' },
        { path: '/srv/shared', access: 'read-only' },
      ],
      protectedPaths: ['/w', '/srv/shared/data', '/var/lib/mango', '/proc'],
    };
    const host = fakeHost({ '/srv/shared/data': 'directory', '/w/alice/.env': 'file' });
    expect(
      buildMountPlan(input(reachable, ['/w/alice/.env', '/w/alice/missing', '/elsewhere']), host),
    ).toEqual([
      ...SYSTEM_PREFIX,
      '--ro-bind-try',
      '/etc/hosts',
      '/etc/hosts',
      '--ro-bind-fd',
      '/s/passwd',
      '/etc/passwd',
      '--ro-bind-fd',
      '/s/group',
      '/etc/group',
      '--ro-bind-fd',
      '/s/waiter',
      '/dev/mango-sandbox-waiter.pl',
      '--size',
      '25',
      '--perms',
      '1777',
      '--tmpfs',
      '/dev/shm',
      '--size',
      '50',
      '--perms',
      '0700',
      '--tmpfs',
      '/home/sandbox',
      '--bind-fd',
      '/w/alice',
      '/w/alice',
      '--ro-bind-fd-try',
      '/srv/shared',
      '/srv/shared',
      '--ro-bind-try',
      '/etc/ssl/certs',
      '/etc/ssl/certs',
      '--ro-bind-fd',
      '/s/dir',
      '/srv/shared/data',
      '--ro-bind-fd',
      '/s/file',
      '/w/alice/.env',
      '--remount-ro',
      '/',
      '--remount-ro',
      '/dev',
      '--chdir',
      '/w/alice',
    ]);
  });

  test('operator mode: / is bound first, read-write, and stays writable; protected paths are covered but /proc and /dev are fresh', () => {
    const reachable = computeOperatorReachableSet('/root', '/root', [
      '/var/lib/mango',
      '/proc',
      '/sys',
      '/dev',
    ]);
    const plan = buildMountPlan(
      input(reachable),
      fakeHost({ '/var/lib/mango': 'directory', '/sys': 'directory' }),
    );
    expect(plan.slice(0, 3)).toEqual(['--bind-fd', '/', '/']);
    expect(plan.slice(-4)).toEqual(['--remount-ro', '/dev', '--chdir', '/root']);
    expect(plan.filter((argument) => argument === '--remount-ro')).toHaveLength(1);
    expect(plan.join(' ')).toContain('--ro-bind-fd /s/dir /sys');
    expect(plan.join(' ')).toContain('--ro-bind-fd /s/dir /var/lib/mango');
    expect(plan.join(' ')).not.toContain('/s/dir /proc');
    expect(plan.join(' ')).not.toContain('/s/dir /dev');
  });

  test("operator mode on a merged-/usr host: / shows the host's own /bin and /etc, so no symlink or /etc bind is made over them", () => {
    const reachable = computeOperatorReachableSet('/root', '/root', ['/proc']);
    const plan = buildMountPlan(input(reachable), fakeHost({}));
    expect(plan).not.toContain('--symlink');
    expect(plan).not.toContain('/etc/hosts');
    expect(plan.slice(0, 6)).toEqual(['--bind-fd', '/', '/', '--ro-bind', '/usr', '/usr']);
    expect(plan.join(' ')).toContain('--ro-bind-fd /s/passwd /etc/passwd --ro-bind-fd /s/group /etc/group');
    // The host has no /home/sandbox: a mount there would create it in the host's own /home.
    expect(plan).not.toContain('/home/sandbox');
    // / shows the host's /tmp: a working directory there must exist in the sandbox.
    expect(plan).not.toContain('/tmp');
    const withHome = buildMountPlan(input(reachable), fakeHost({ '/home/sandbox': 'directory' }));
    expect(withHome.join(' ')).toContain('--tmpfs /home/sandbox');
  });

  test('a root under /tmp is mounted after the private /tmp, so it is not hidden', () => {
    const reachable: ReachableSet = {
      workingDirectory: '/tmp/ws',
      homeDirectory: '/tmp/ws',
      roots: [{ path: '/tmp/ws', access: 'read-only' }],
      protectedPaths: [],
    };
    const plan = buildMountPlan(input(reachable), fakeHost({}));
    const text = plan.join(' ');
    expect(text.indexOf('--ro-bind-fd /tmp/ws /tmp/ws')).toBeGreaterThan(text.indexOf('--tmpfs /tmp'));
    expect(text).toEndWith('--remount-ro / --remount-ro /dev --chdir /tmp/ws');
  });

  test('every root, cover and synthesized file is a bind by object; only root-owned system paths are bound by path', () => {
    const reachable: ReachableSet = {
      workingDirectory: '/w/alice',
      homeDirectory: '/w/alice',
      roots: [
        { path: '/w/alice', access: 'read-write' },
        { path: '/srv/shared', access: 'read-only' },
      ],
      protectedPaths: ['/srv/shared/data'],
    };
    const plan = buildHeldMountPlan(input(reachable), fakeHost({ '/srv/shared/data': 'directory' }));
    expect(plan.filter((argument) => typeof argument !== 'string')).toEqual([
      {
        source: '/s/passwd',
        destination: '/etc/passwd',
        readOnly: true,
        required: true,
        kind: 'file',
        covers: false,
      },
      {
        source: '/s/group',
        destination: '/etc/group',
        readOnly: true,
        required: true,
        kind: 'file',
        covers: false,
      },
      {
        source: '/s/waiter',
        destination: '/dev/mango-sandbox-waiter.pl',
        readOnly: true,
        required: true,
        kind: 'file',
        covers: false,
      },
      {
        source: '/w/alice',
        destination: '/w/alice',
        readOnly: false,
        required: true,
        kind: 'directory',
        covers: false,
      },
      {
        source: '/srv/shared',
        destination: '/srv/shared',
        readOnly: true,
        required: false,
        kind: 'directory',
        covers: false,
      },
      {
        source: '/s/dir',
        destination: '/srv/shared/data',
        readOnly: true,
        required: true,
        kind: 'directory',
        covers: true,
      },
    ]);
    const byPath = plan.filter((argument) => argument === '--bind' || argument === '--ro-bind');
    expect(byPath).toEqual(['--ro-bind']);
    expect(plan.slice(0, 3)).toEqual(['--ro-bind', '/usr', '/usr']);
  });
});
