/**
 * Personal workspaces on disk images, with real loop mounts: a new workspace of a user with a quota is
 * an ext4 image mounted at its path (nosuid, nodev; the user's, mode 0700, no lost+found); a plain
 * workspace stays plain; an image that is not mounted (a reboot) is mounted again before it is used,
 * its files intact; a workspace whose move did not finish is refused; a process that cannot mount
 * images makes plain workspaces and refuses the ones on an image; the reachable set carries the quota.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createWorkspaceService } from '../../src/workspaces/create-workspace-service.ts';
import { mountAt } from '../../src/workspaces/mount-table.ts';
import { WorkspaceDisks } from '../../src/workspaces/workspace-disks.ts';
import { InMemoryWorkspaceRepository } from '../../src/workspaces/workspace-repository.ts';
import { WorkspaceService } from '../../src/workspaces/workspace-service.ts';
import { createDiskTestBase, type DiskTestBase, describeDisks, MIB } from '../helpers/test-disks.ts';

const OWNER = { uid: 1_900_000_321, gid: 1_900_000_321 };

describeDisks('personal workspaces on disk images', () => {
  let layout: DiskTestBase;
  let repository: InMemoryWorkspaceRepository;
  let service: WorkspaceService;

  beforeAll(() => {
    layout = createDiskTestBase();
    repository = new InMemoryWorkspaceRepository();
    service = createWorkspaceService(
      { dataDirectory: layout.data, workspacesDirectory: layout.workspaces, userDiskBytes: 8 * MIB },
      repository,
      undefined,
      { ownerOf: async () => OWNER },
    );
  });

  afterAll(async () => {
    await layout.remove();
  });

  test('a new workspace is its own ext4 image of the quota, mounted nosuid and nodev at its path', async () => {
    const path = await service.personalWorkspace('alice');
    expect(path).toBe(join(layout.workspaces, 'alice'));
    const mount = mountAt(path);
    expect(mount?.fsType).toBe('ext4');
    expect(mount?.mountOptions).toContain('nosuid');
    expect(mount?.mountOptions).toContain('nodev');
    expect(mount?.superOptions).toContain('minixdf');
    const stats = statSync(path);
    expect([stats.uid, stats.gid, stats.mode & 0o7777]).toEqual([OWNER.uid, OWNER.gid, 0o700]);
    expect(readdirSync(path)).toEqual([]);
    const filesystem = statfsSync(path);
    expect(filesystem.blocks * filesystem.bsize).toBe(8 * MIB);
    const image = statSync(join(layout.data, 'disks', 'alice.ext4'));
    expect([image.size, image.mode & 0o777]).toEqual([8 * MIB, 0o600]);
    const workspaces = await service.listWorkspaces('alice');
    expect(workspaces).toEqual([{ path, access: 'read-write', kind: 'personal', diskQuotaBytes: 8 * MIB }]);
    const { reachable } = await service.reachableSetFor('alice', { workingDirectory: null, confined: true });
    expect(reachable.roots).toEqual([{ path, access: 'read-write', diskQuotaBytes: 8 * MIB }]);
  });

  test("the user's own quota is the size of their new image", async () => {
    await repository.setDiskQuota('carol', 12 * MIB);
    const path = await service.personalWorkspace('carol');
    const filesystem = statfsSync(path);
    expect(filesystem.blocks * filesystem.bsize).toBe(12 * MIB);
    expect((await service.listWorkspaces('carol'))[0]?.diskQuotaBytes).toBe(12 * MIB);
  });

  test('an image that is not mounted (after a reboot) is mounted again before it is used', async () => {
    const path = await service.personalWorkspace('dave');
    writeFileSync(join(path, 'kept.txt'), 'still here\n');
    const unmount = Bun.spawn(['umount', path]);
    expect(await unmount.exited).toBe(0);
    // What is left without the image: the bare directory, root's and closed to everyone.
    const bare = lstatSync(path);
    expect([bare.uid, bare.mode & 0o7777, readdirSync(path)]).toEqual([0, 0, []]);
    expect(await service.personalWorkspace('dave')).toBe(path);
    expect(mountAt(path)?.fsType).toBe('ext4');
    expect(readFileSync(join(path, 'kept.txt'), 'utf8')).toBe('still here\n');
  });

  test('a plain workspace made before quotas stays plain, without a quota', async () => {
    const path = join(layout.workspaces, 'erin');
    mkdirSync(path, { mode: 0o700 });
    writeFileSync(join(path, 'old.txt'), 'old\n');
    expect(await service.personalWorkspace('erin')).toBe(path);
    expect(mountAt(path)).toBeUndefined();
    expect(await service.listWorkspaces('erin')).toEqual([{ path, access: 'read-write', kind: 'personal' }]);
  });

  test('a user without a quota (none of their own, no default) gets a plain workspace', async () => {
    const plain = createWorkspaceService(
      { dataDirectory: layout.data, workspacesDirectory: layout.workspaces },
      repository,
    );
    const path = await plain.personalWorkspace('frank');
    expect(mountAt(path)).toBeUndefined();
    expect(statSync(path).mode & 0o7777).toBe(0o700);
  });

  test('a workspace whose move onto its image did not finish is refused, naming the command', async () => {
    writeFileSync(join(layout.data, 'disks', 'gina.ext4.partial'), '');
    mkdirSync(join(layout.workspaces, 'gina'), { mode: 0o700 });
    await expect(service.personalWorkspace('gina')).rejects.toThrow(
      `The personal workspace ${join(layout.workspaces, 'gina')} is being moved onto its disk image and cannot be used until that is done: with the server stopped, run \`mango workspace move-to-image\` for this user again to finish it.`,
    );
  });

  test('a process that cannot mount images makes plain workspaces, and refuses one that lives on an image', async () => {
    const disks = new WorkspaceDisks({
      dataDirectory: layout.data,
      workspacesDirectory: layout.workspaces,
      defaultQuotaBytes: 8 * MIB,
      repository,
      root: false,
    });
    const unprivileged = new WorkspaceService({
      repository,
      workspacesDirectory: layout.workspaces,
      protectedPaths: [],
      disks,
    });
    expect(await disks.availability()).toEqual({
      available: false,
      reason: 'the server is not root (mounting a disk image needs root)',
    });
    const path = await unprivileged.personalWorkspace('hank');
    expect(mountAt(path)).toBeUndefined();
    // dave's image, taken off its path: this process may not mount it, so it may not use the path.
    const unmount = Bun.spawn(['umount', join(layout.workspaces, 'dave')]);
    expect(await unmount.exited).toBe(0);
    await expect(unprivileged.personalWorkspace('dave')).rejects.toThrow(
      `The personal workspace ${join(layout.workspaces, 'dave')} lives on the disk image ${join(layout.data, 'disks', 'dave.ext4')}, which is not mounted, and this process cannot mount it: the server is not root (mounting a disk image needs root).`,
    );
  });
});
