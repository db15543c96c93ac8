/**
 * `giveGrantToGroup` on real trees as root: fifos and sockets are left alone, nested directories all
 * get the group and setgid, and a mount inside the grant is neither entered nor changed (in a mount
 * namespace of a fixture process's own). The CLI's view of it (hard links, symlinks, modes):
 * tests/cli/workspace-grant-check.test.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { giveGrantToGroup } from '../../src/sandbox/give-grant-to-group.ts';

const GROUP = 1900000042;
const isRoot = process.getuid?.() === 0;
const base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-give-grant-')));
afterAll(() => rmSync(base, { recursive: true, force: true }));

function owned(path: string): [number, number, number] {
  const stats = lstatSync(path);
  return [stats.mode & 0o7777, stats.uid, stats.gid];
}

describe.skipIf(!isRoot)('giveGrantToGroup as root', () => {
  test('every directory down the tree; fifos and sockets are left as they were', async () => {
    const granted = join(base, 'tree');
    mkdirSync(join(granted, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(join(granted, 'a', 'b', 'c', 'deep.txt'), 'deep\n', { mode: 0o644 });
    chmodSync(join(granted, 'a', 'b', 'c', 'deep.txt'), 0o644);
    expect(spawnSync('mkfifo', ['-m', '0600', join(granted, 'a', 'pipe')]).status).toBe(0);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(granted, 'a', 'socket'), resolve));
    try {
      const before = owned(join(granted, 'a', 'socket'));
      expect(giveGrantToGroup(granted, GROUP, 'read-write')).toEqual({
        directories: 4,
        files: 1,
        hardLinked: [],
        otherFilesystems: [],
      });
      for (const directory of ['', 'a', 'a/b', 'a/b/c']) {
        expect(owned(join(granted, directory))[2]).toBe(GROUP);
        expect(owned(join(granted, directory))[0] & 0o2070).toBe(0o2070);
      }
      expect(owned(join(granted, 'a', 'b', 'c', 'deep.txt'))).toEqual([0o664, 0, GROUP]);
      expect(owned(join(granted, 'a', 'pipe'))).toEqual([0o600, 0, 0]);
      expect(owned(join(granted, 'a', 'socket'))).toEqual(before);
    } finally {
      server.close();
    }
  });

  test('a filesystem mounted inside the grant is not entered, and is reported', () => {
    const granted = join(base, 'mounts');
    mkdirSync(join(granted, 'mounted'), { recursive: true });
    const fixture = join(import.meta.dir, '__fixtures__', 'give-grant-across-mount.ts');
    const run = spawnSync(
      'unshare',
      ['--mount', '--propagation', 'private', process.execPath, fixture, granted, String(GROUP)],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect([run.status, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toEqual({
      change: { directories: 1, files: 0, hardLinked: [], otherFilesystems: ['mounted'] },
      mountedGroup: 0,
      fileGroup: 0,
    });
    expect(owned(granted)[2]).toBe(GROUP);
  });

  test('a granted path that is a link is refused (ELOOP), and nothing changes', () => {
    const target = join(base, 'target');
    mkdirSync(target);
    const link = join(base, 'link');
    symlinkSync(target, link);
    expect(() => giveGrantToGroup(link, GROUP, 'read-only')).toThrow('ELOOP');
    expect(owned(target)[2]).toBe(0);
  });
});
