/**
 * `mango user quota NAME [BYTES|default]`, in process against a real database (both backends) and real
 * 8 MiB ext4 images, the workspaces made by `mango tool call --user` as any command that needs one:
 * it shows the quota and the use; a higher quota grows a mounted image at once (online, or taken off,
 * grown and mounted again where the kernel refuses to grow it mounted) and an unmounted one offline; a
 * lower one reserves the difference, so the user's own uid stops at it; one below the use is refused
 * with the use, and nothing is stored; `default` goes back to MANGO_USER_DISK_BYTES.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../../src/config/byte-size.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { filesystemBytes, readExt4Superblock } from '../../src/workspaces/ext4-image.ts';
import { mountAt } from '../../src/workspaces/mount-table.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { releaseMountsUnder } from '../helpers/release-mounts.ts';
import { runAsHostAccount } from '../helpers/tenant-server.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { describeDisks, MIB } from '../helpers/test-disks.ts';

/** The default sandbox range's base: the group every user's uid carries. */
const SANDBOX_GROUP = 1_900_000_000;

describeDisks('mango user quota', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let handle: TestDatabase;
    const ids = { alice: '', bob: '', carol: '' };
    const paths = { alice: '', bob: '' };

    async function run(argv: string[]) {
      return runCliCaptured(argv, handle.config.dataDirectory, {
        MANGO_DATA_DIR: handle.config.dataDirectory,
        DATABASE_URL: handle.config.databaseUrl,
        MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
        MANGO_USER_DISK_BYTES: '8MiB',
      });
    }

    const image = (name: 'alice' | 'bob') => join(handle.config.dataDirectory, 'disks', `${ids[name]}.ext4`);
    const size = (path: string) => {
      const stats = statfsSync(path);
      return stats.blocks * stats.bsize;
    };
    const used = (path: string) => {
      const stats = statfsSync(path);
      return (stats.blocks - stats.bfree) * stats.bsize;
    };
    const stored = (name: 'alice' | 'bob' | 'carol') =>
      new DatabaseWorkspaceRepository(handle.database).diskQuota(ids[name]);
    const mounted = (name: 'alice' | 'bob') =>
      `Their workspace is the image ${image(name)} (${formatBytes(size(paths[name]))}), mounted at ${paths[name]}, with ${formatBytes(used(paths[name]))} used.`;

    beforeAll(async () => {
      handle = await createTestDatabase(backend);
      const users = new DatabaseUserRepository(handle.database);
      for (const name of ['alice', 'bob', 'carol'] as const) ids[name] = (await users.create(name)).user.id;
      for (const name of ['alice', 'bob'] as const) {
        // A command that needs the workspace makes it: an image, mounted.
        expect((await run(['tool', 'call', 'list_directory', '{"path":"."}', '--user', name])).code).toBe(0);
        paths[name] = join(handle.config.workspacesDirectory, ids[name]);
        expect(mountAt(paths[name])?.fsType).toBe('ext4');
      }
    }, 30_000);

    afterAll(async () => {
      await releaseMountsUnder(handle.config.workspacesDirectory);
      await releaseMountsUnder(handle.config.dataDirectory);
      await handle.dispose();
    });

    test('it shows the quota and the use', async () => {
      expect(await run(['user', 'quota', 'alice'])).toEqual({
        code: 0,
        stdout: `"alice" has a disk quota of 8 MiB (the default, MANGO_USER_DISK_BYTES). ${mounted('alice')}\n`,
        stderr: '',
      });
    });

    test('a higher quota grows the mounted image at once', async () => {
      const result = await run(['user', 'quota', 'alice', '16MiB']);
      expect(size(paths.alice)).toBe(16 * MIB);
      expect(result).toEqual({
        code: 0,
        stdout: `"alice" now has a disk quota of 16 MiB (their own; the default is 8 MiB). ${mounted('alice')}\n`,
        stderr: '',
      });
      expect(await stored('alice')).toBe(16 * MIB);
      const grown = Bun.spawnSync(['fallocate', '-l', '6M', join(paths.alice, 'six.bin')]);
      expect(grown.exitCode).toBe(0);
    });

    test('a quota below the use is refused with the use, and nothing is stored', async () => {
      const use = used(paths.alice);
      const least = Math.ceil(use / MIB) * MIB;
      expect(await run(['user', 'quota', 'alice', '4MiB'])).toEqual({
        code: 1,
        stdout: '',
        stderr: `mango: "alice": The workspace uses ${formatBytes(use)} (${use} bytes), more than a quota of 4 MiB: remove files first, or give at least ${formatBytes(least)} (${least} bytes).\n`,
      });
      expect(await stored('alice')).toBe(16 * MIB);
    });

    test("a lower quota reserves the difference: the user's own uid stops at it", async () => {
      expect((await run(['user', 'quota', 'alice', '10MiB'])).code).toBe(0);
      // The image keeps its size; the user's share is the quota.
      expect(size(paths.alice)).toBe(16 * MIB);
      // The workspace's owner: alice's own uid, in the sandbox group that passes the workspaces directory.
      const { uid, gid } = statSync(paths.alice);
      expect(uid).toBeGreaterThan(SANDBOX_GROUP);
      const alice = { uid, gid, groups: [SANDBOX_GROUP] };
      const tooMuch = runAsHostAccount(alice, ['fallocate', '-l', '4M', join(paths.alice, 'four.bin')]);
      expect(tooMuch).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: 'fallocate: fallocate failed: No space left on device\n',
      });
      rmSync(join(paths.alice, 'four.bin'), { force: true });
      const fits = runAsHostAccount(alice, ['fallocate', '-l', '1M', join(paths.alice, 'one.bin')]);
      expect(fits).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    });

    test('`default` goes back to MANGO_USER_DISK_BYTES once the use allows it', async () => {
      const refused = await run(['user', 'quota', 'alice', 'default']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('more than a quota of 8 MiB');
      rmSync(join(paths.alice, 'six.bin'));
      rmSync(join(paths.alice, 'one.bin'));
      expect(await run(['user', 'quota', 'alice', 'default'])).toEqual({
        code: 0,
        stdout: `"alice" now has a disk quota of 8 MiB (the default, MANGO_USER_DISK_BYTES). ${mounted('alice')}\n`,
        stderr: '',
      });
      expect(await stored('alice')).toBeUndefined();
    });

    test('an image mounted nowhere is grown offline, and mounted at that size when next needed', async () => {
      expect(Bun.spawnSync(['umount', paths.bob]).exitCode).toBe(0);
      expect((await run(['user', 'quota', 'bob', '12MiB'])).code).toBe(0);
      expect(filesystemBytes(readExt4Superblock(image('bob')))).toBe(12 * MIB);
      expect(mountAt(paths.bob)).toBeUndefined();
      expect((await run(['tool', 'call', 'list_directory', '{"path":"."}', '--user', 'bob'])).code).toBe(0);
      expect(size(paths.bob)).toBe(12 * MIB);
    });

    test('a user without an image keeps the quota for when it is made; bad values are usage errors', async () => {
      expect(await run(['user', 'quota', 'carol', '6MiB'])).toEqual({
        code: 0,
        stdout:
          '"carol" now has a disk quota of 6 MiB (their own; the default is 8 MiB). Their workspace has no disk image yet: it gets one of that size when it is made, or moved (`mango workspace move-to-image carol`, with the server stopped).\n',
        stderr: '',
      });
      expect(await stored('carol')).toBe(6 * MIB);
      expect(await run(['user', 'quota', 'carol', '5GB'])).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'mango: BYTES must be a whole number of MiB from 4 MiB to 16 TiB (bytes, or with KiB, MiB, GiB, TiB), or "default"; got "5GB". See "mango user --help".\n',
      });
      expect(await run(['user', 'quota', 'carol', '3MiB'])).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'mango: BYTES is refused: a disk quota is at least 4 MiB (4194304 bytes); got "3MiB". See "mango user --help".\n',
      });
      expect(await run(['user', 'quota', 'nobody', '8MiB'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'mango: no user named "nobody".\n',
      });
      expect(
        readdirSync(join(handle.config.dataDirectory, 'disks'))
          .filter((name) => name.endsWith('.ext4'))
          .sort(),
      ).toEqual([`${ids.alice}.ext4`, `${ids.bob}.ext4`].sort());
    });
  });
});
