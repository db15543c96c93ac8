/**
 * The mount table as the kernel writes it (`proc(5)`): optional fields before ` - `, escaped spaces,
 * tabs and backslashes in paths, and the top mount when several are stacked on one path.
 */
import { expect, test } from 'bun:test';
import { mountAt, parseMountInfo } from '../../src/workspaces/mount-table.ts';

const TABLE = [
  '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  '110 27 7:0 / /srv/ws/alice rw,nosuid,nodev,relatime shared:60 master:2 - ext4 /dev/loop0 rw,minixdf,discard',
  '111 27 7:1 / /srv/a\\040b\\011c\\134d rw,relatime - ext4 /dev/loop1 rw',
  '112 110 7:2 / /srv/ws/alice rw,nosuid,nodev - ext4 /dev/loop2 ro',
  '',
].join('\n');

test('each line gives the mount point, type, source and both sets of options', () => {
  expect(parseMountInfo(TABLE)).toEqual([
    {
      mountPoint: '/',
      fsType: 'ext4',
      source: '/dev/vda',
      mountOptions: ['rw', 'relatime'],
      superOptions: ['rw'],
    },
    {
      mountPoint: '/srv/ws/alice',
      fsType: 'ext4',
      source: '/dev/loop0',
      mountOptions: ['rw', 'nosuid', 'nodev', 'relatime'],
      superOptions: ['rw', 'minixdf', 'discard'],
    },
    {
      mountPoint: '/srv/a b\tc\\d',
      fsType: 'ext4',
      source: '/dev/loop1',
      mountOptions: ['rw', 'relatime'],
      superOptions: ['rw'],
    },
    {
      mountPoint: '/srv/ws/alice',
      fsType: 'ext4',
      source: '/dev/loop2',
      mountOptions: ['rw', 'nosuid', 'nodev'],
      superOptions: ['ro'],
    },
  ]);
});

test('the mount at a path is the one on top', () => {
  const table = parseMountInfo(TABLE);
  expect(mountAt('/srv/ws/alice', table)?.source).toBe('/dev/loop2');
  expect(mountAt('/srv/ws/bob', table)).toBeUndefined();
});
