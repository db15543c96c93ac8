/**
 * Disk quotas when a server starts: every image is mounted again (after a reboot took the mounts), the
 * plain workspaces still to move are counted, and one line says what holds: off, unavailable and why,
 * or on with the default and the counts. A running server holds the data directory's lock, so a move
 * is refused until it stops.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../src/server/start-server.ts';
import { createWorkspaceService } from '../../src/workspaces/create-workspace-service.ts';
import { mountAt } from '../../src/workspaces/mount-table.ts';
import { describeDiskQuotas, mountWorkspaceDisks } from '../../src/workspaces/start-workspace-disks.ts';
import { WorkspaceDisks } from '../../src/workspaces/workspace-disks.ts';
import { InMemoryWorkspaceRepository } from '../../src/workspaces/workspace-repository.ts';
import { releaseMountsUnder } from '../helpers/release-mounts.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { createDiskTestBase, type DiskTestBase, describeDisks, MIB } from '../helpers/test-disks.ts';

test('without a default and without images, quotas are off', async () => {
  const layout = createDiskTestBase();
  try {
    const disks = new WorkspaceDisks({
      dataDirectory: layout.data,
      workspacesDirectory: layout.workspaces,
      defaultQuotaBytes: undefined,
      repository: new InMemoryWorkspaceRepository(),
    });
    const summary = await mountWorkspaceDisks(disks);
    expect(describeDiskQuotas(summary)).toBe(
      `Workspace disk quotas are off (MANGO_USER_DISK_BYTES is unset): a user's workspace can fill the disk of ${layout.workspaces}.`,
    );
  } finally {
    await layout.remove();
  }
});

describeDisks('disk quotas at start', () => {
  let layout: DiskTestBase;
  let repository: InMemoryWorkspaceRepository;
  const disksOf = (root: boolean) =>
    new WorkspaceDisks({
      dataDirectory: layout.data,
      workspacesDirectory: layout.workspaces,
      defaultQuotaBytes: 8 * MIB,
      repository,
      root,
    });

  beforeAll(async () => {
    layout = createDiskTestBase();
    repository = new InMemoryWorkspaceRepository();
    const service = createWorkspaceService(
      { dataDirectory: layout.data, workspacesDirectory: layout.workspaces, userDiskBytes: 8 * MIB },
      repository,
    );
    await service.personalWorkspace('alice');
    mkdirSync(join(layout.workspaces, 'erin'), { mode: 0o700 });
  });

  afterAll(async () => {
    await layout.remove();
  });

  test('every image is mounted again, and the plain workspaces are counted', async () => {
    expect(Bun.spawnSync(['umount', join(layout.workspaces, 'alice')]).exitCode).toBe(0);
    const summary = await mountWorkspaceDisks(disksOf(true));
    expect(mountAt(join(layout.workspaces, 'alice'))?.fsType).toBe('ext4');
    expect(describeDiskQuotas(summary)).toBe(
      `Workspace disk quotas: 8 MiB per user (\`mango user quota\` sets one user's), each personal workspace an ext4 image in ${join(layout.data, 'disks')}; 1 image mounted. 1 workspace is a plain directory without a quota: stop the server and run \`mango workspace move-to-image --all\`.`,
    );
  });

  test('a process that cannot mount images says why, and names the images it leaves unmounted', async () => {
    expect(Bun.spawnSync(['umount', join(layout.workspaces, 'alice')]).exitCode).toBe(0);
    const summary = await mountWorkspaceDisks(disksOf(false));
    expect(describeDiskQuotas(summary)).toBe(
      `Workspace disk quotas are unavailable: the server is not root (mounting a disk image needs root). New workspaces are plain directories on the disk of ${layout.workspaces}. Not mounted, so unusable until fixed: alice: The personal workspace ${join(layout.workspaces, 'alice')} lives on the disk image ${join(layout.data, 'disks', 'alice.ext4')}, which is not mounted, and this process cannot mount it: the server is not root (mounting a disk image needs root).`,
    );
    expect(mountAt(join(layout.workspaces, 'alice'))).toBeUndefined();
  });
});

describeDisks('a running server', () => {
  test('prints the line and holds the data directory, so a move waits for it to stop', async () => {
    const handle = await createTestDatabase('sqlite');
    const printed: string[] = [];
    const config = { ...handle.config, userDiskBytes: 8 * MIB };
    const server = await startServer(config, { print: (line) => printed.push(line), env: {} });
    const disks = server.deps.workspaces.disks!;
    try {
      expect(printed).toContain(
        `Workspace disk quotas: 8 MiB per user (\`mango user quota\` sets one user's), each personal workspace an ext4 image in ${disks.disksDirectory}; 0 images mounted.`,
      );
      await expect(disks.requireNoServer()).rejects.toThrow(
        `A server is running with this data directory (it holds ${join(disks.disksDirectory, 'servers.lock')}): stop it first. Moving a workspace needs it unused.`,
      );
    } finally {
      await server.stop();
    }
    (await disks.requireNoServer()).release();
    await releaseMountsUnder(handle.config.workspacesDirectory);
    await handle.dispose();
  });
});
