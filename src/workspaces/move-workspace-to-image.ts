/**
 * Moves a plain personal workspace onto a disk image of its own (`mango workspace move-to-image`), with
 * every server stopped (the caller holds `requireNoServer`). The steps, each of which a later run finds
 * done and skips, so a move that was interrupted (killed, the host rebooted, the disk full) is finished
 * by running it again:
 *
 * 1. The image is made as `<id>.ext4.partial` (mkfs into `.new`, then that name): the quota's size, or
 *    larger when the workspace holds more than the quota fits (sized from what it holds).
 * 2. It is mounted at `<data>/disks/<id>.moving` and the workspace copied into it by descriptor
 *    (copy-tree.ts: links copied as links and never followed, owners, modes and times kept). A copy that
 *    fills the image grows it offline and goes on.
 * 3. It is taken off again; the workspace directory is renamed aside to `.<id>.before-image` in the
 *    workspaces directory (where no user reaches) and an empty root-only directory takes its place.
 * 4. The image gets its final name and is mounted at the workspace's path, fitted to its quota
 *    (ext4-image.ts): a workspace over its quota keeps its files, the excess reserved, so its user can
 *    only remove files until it is under again.
 * 5. Only then is the old copy removed, by descriptor.
 *
 * A workspace whose move is between steps 1 and 4 is refused by every server (workspace-disks.ts), so
 * no one writes into a copy that is about to be replaced.
 */
import { statfsSync } from 'node:fs';
import { formatBytes } from '../config/byte-size.ts';
import { DISK_QUOTA_STEP_BYTES } from '../config/disk-quota-size.ts';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import { type CopyReport, copyRootMetadata, copyTree, measureTree } from './copy-tree.ts';
import { filesystemBytes, growExt4Image, makeExt4Image, readExt4Superblock } from './ext4-image.ts';
import { imageMountAt, mountImage, unmountImage } from './image-mount.ts';
import { loopDevicesBacking } from './mount-table.ts';
import { removeTree } from './remove-tree.ts';
import { WorkspaceDiskError } from './workspace-disk-error.ts';
import type { WorkspaceDisks } from './workspace-disks.ts';
import { isBareMountPoint, MOUNT_POINT_MODE } from './workspace-mount-point.ts';

export interface MoveReport {
  outcome: /** Moved now (or a move begun earlier was finished). */
    | 'moved'
    /** It already lives on its image. */
    | 'already'
    /** There is no workspace to move (it is made on its image at first use). */
    | 'nothing';
  /** Figures of the mounted image (for `moved` and `already`). */
  usedBytes?: number;
  quotaBytes?: number;
  imageBytes?: number;
  /** What the copy made and left out (for a move that copied now). */
  copy?: CopyReport;
  /** Mounts found inside the old copy, left in place. */
  leftBehind?: string[];
}

/**
 * What an image needs beyond the data it is to hold: ext4's own structures (inode tables, the journal)
 * take up to an eighth of a small image, and a few MiB more. A copy that needs more grows it.
 */
const OVERHEAD_FACTOR = 1.125;
const SPARE_BYTES = 4 * 1024 * 1024;
/** How often a copy that filled its image grows it and goes on before the move gives up. */
const MAX_GROWTHS = 8;

function roundUpToStep(bytes: number): number {
  return Math.ceil(bytes / DISK_QUOTA_STEP_BYTES) * DISK_QUOTA_STEP_BYTES;
}

/** Moves `userId`'s workspace onto its image (see the module comment). */
export async function moveWorkspaceToImage(disks: WorkspaceDisks, userId: string): Promise<MoveReport> {
  await disks.requireAvailable();
  const aside = `.${userId}.before-image`;
  return disks.withUserLock(userId, (disksDirectory) =>
    withHeldDirectory(HeldDirectory.open(disks.workspacesDirectory), async (workspaces) => {
      const hasImage = await Bun.file(disks.imagePath(userId)).exists();
      const hasPartial = await Bun.file(disks.partialImagePath(userId)).exists();
      const asideEntry = workspaces.statEntryIfPresent(aside);
      let copy: CopyReport | undefined;
      if (!hasImage && asideEntry === undefined) {
        if (!hasPartial) {
          const entry = workspaces.statEntryIfPresent(userId);
          if (entry === undefined || isBareMountPoint(workspaces, userId, entry))
            return { outcome: 'nothing' };
          if (!entry.isDirectory() || entry.dev !== workspaces.stat().dev) {
            throw new WorkspaceDiskError(
              'move_refused',
              `${disks.workspacePath(userId)} is not a plain directory on the workspaces directory's filesystem; it cannot be moved.`,
            );
          }
          await makePartialImage(disks, disksDirectory, workspaces, userId);
        }
        copy = await copyIntoPartial(disks, disksDirectory, workspaces, userId);
        // Step 3: the old directory aside, an empty root-only one in its place.
        workspaces.rename(userId, workspaces, aside, { noReplace: true });
        workspaces.createDirectory(userId, MOUNT_POINT_MODE);
      }
      if (!(await Bun.file(disks.imagePath(userId)).exists())) {
        // Step 4: the copy is complete (the old directory went aside only after it).
        disksDirectory.rename(`${userId}.ext4.partial`, disksDirectory, `${userId}.ext4`, {
          noReplace: true,
        });
      }
      if (imageMountAt(disks.workspacePath(userId), disks.imagePath(userId)) === undefined) {
        requireEmptyMountPoint(disks, workspaces, userId);
      }
      await disks.mountLocked(workspaces, userId);
      let leftBehind: string[] | undefined;
      if (workspaces.statEntryIfPresent(aside) !== undefined) leftBehind = removeTree(workspaces, aside);
      const stats = statfsSync(disks.workspacePath(userId));
      return {
        outcome: hasImage && asideEntry === undefined ? 'already' : 'moved',
        usedBytes: (stats.blocks - stats.bfree) * stats.bsize,
        quotaBytes: await disks.quotaOf(userId),
        imageBytes: stats.blocks * stats.bsize,
        ...(copy === undefined ? {} : { copy }),
        ...(leftBehind === undefined || leftBehind.length === 0 ? {} : { leftBehind }),
      };
    }),
  );
}

/** Step 1: the image, sized for the quota or for what the workspace holds, whichever is larger. */
async function makePartialImage(
  disks: WorkspaceDisks,
  disksDirectory: HeldDirectory,
  workspaces: HeldDirectory,
  userId: string,
): Promise<void> {
  const quota = await disks.configuredQuota(userId);
  if (quota === undefined) {
    throw new WorkspaceDiskError(
      'move_refused',
      'No disk quota applies to this user: set MANGO_USER_DISK_BYTES, or give them one with `mango user quota NAME BYTES`, then move the workspace.',
    );
  }
  const source = workspaces.openDirectory(userId);
  let size: ReturnType<typeof measureTree>;
  try {
    size = measureTree(source);
  } finally {
    source.close();
  }
  const needed = roundUpToStep(size.bytes * OVERHEAD_FACTOR + SPARE_BYTES);
  const imageBytes = Math.max(quota, needed);
  const host = statfsSync(disks.disksDirectory);
  const free = host.bavail * host.bsize;
  // The image is sparse: it takes what is copied into it, while the old copy still exists.
  if (free < size.bytes + SPARE_BYTES) {
    throw new WorkspaceDiskError(
      'move_refused',
      `Moving the workspace needs about ${formatBytes(size.bytes + SPARE_BYTES)} free on the filesystem of ${disks.disksDirectory} while both copies exist; it has ${formatBytes(free)}.`,
    );
  }
  const fresh = `${userId}.ext4.new`;
  if (disksDirectory.statEntryIfPresent(fresh) !== undefined) disksDirectory.removeFile(fresh);
  const handle = await disksDirectory.createFile(fresh, 0o600);
  try {
    await handle.truncate(imageBytes);
  } finally {
    await handle.close();
  }
  // Enough inodes for every entry, with room for more (mkfs's own ratio when that is more).
  const ratio = imageBytes < 512 * 1024 * 1024 ? 4096 : 16384;
  const inodes = Math.max(Math.ceil(imageBytes / ratio), Math.ceil(size.entries * 1.5) + 1024);
  await makeExt4Image(`${disksDirectory.path}/${fresh}`, imageBytes, { inodes });
  disksDirectory.rename(fresh, disksDirectory, `${userId}.ext4.partial`, { noReplace: true });
}

/** Step 2: the copy into the partial image mounted at `<id>.moving`, growing it when it fills. */
async function copyIntoPartial(
  disks: WorkspaceDisks,
  disksDirectory: HeldDirectory,
  workspaces: HeldDirectory,
  userId: string,
): Promise<CopyReport> {
  const partial = disks.partialImagePath(userId);
  const pointName = `${userId}.moving`;
  const point = `${disksDirectory.path}/${pointName}`;
  if (disksDirectory.statEntryIfPresent(pointName) === undefined)
    disksDirectory.createDirectory(pointName, 0o700);
  for (let growths = 0; ; growths += 1) {
    if (imageMountAt(point, partial) === undefined) {
      if (loopDevicesBacking(partial).length > 0) {
        throw new WorkspaceDiskError(
          'move_refused',
          `${partial} is attached to a loop device already; detach it (\`losetup -d\`) and run the move again.`,
        );
      }
      await withHeldDirectory(disksDirectory.openDirectory(pointName), (held) =>
        mountImage({ image: partial }, held.fd),
      );
    }
    try {
      const report = await withHeldDirectory(workspaces.openDirectory(userId), (source) =>
        withHeldDirectory(disksDirectory.openDirectory(pointName), (target) => {
          dropFilesystemLostAndFound(source, target);
          const copied = copyTree(source, target);
          copyRootMetadata(source, target);
          return copied;
        }),
      );
      await takeOff(point, partial);
      disksDirectory.removeDirectory(pointName);
      return report;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOSPC' || growths >= MAX_GROWTHS) throw error;
      // Full: off, half as large again, on, and the copy goes on from where it was.
      await takeOff(point, partial);
      const size = filesystemBytes(readExt4Superblock(partial));
      await growExt4Image(partial, roundUpToStep(size * 1.5));
    }
  }
}

/**
 * mkfs's `lost+found` in the image's root, unless the workspace has one of its own (then the copy
 * brings that): a workspace on an image shows no entry its user never made.
 */
function dropFilesystemLostAndFound(source: HeldDirectory, target: HeldDirectory): void {
  if (source.statEntryIfPresent('lost+found') !== undefined) return;
  const made = target.statEntryIfPresent('lost+found');
  if (made?.isDirectory() && made.uid === 0) target.removeDirectory('lost+found');
}

/** Unmounts the partial image and waits until no loop device holds it (offline changes need that). */
async function takeOff(point: string, partial: string): Promise<void> {
  await unmountImage(point);
  const deadline = Date.now() + 5_000;
  while (loopDevicesBacking(partial).length > 0) {
    if (Date.now() >= deadline)
      throw new WorkspaceDiskError(
        'move_refused',
        `${partial} stayed attached to a loop device after it was unmounted.`,
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The path the image is about to be mounted on must hold nothing: anything there was written after
 * the old directory went aside, and the mount would hide it.
 */
function requireEmptyMountPoint(disks: WorkspaceDisks, workspaces: HeldDirectory, userId: string): void {
  const entry = workspaces.statEntryIfPresent(userId);
  if (entry === undefined) return;
  const point = workspaces.openDirectory(userId);
  try {
    if (point.entriesSync().length === 0) return;
  } finally {
    point.close();
  }
  throw new WorkspaceDiskError(
    'move_refused',
    `Files were written to ${disks.workspacePath(userId)} after its old contents were moved aside to .${userId}.before-image; mounting the image there would hide them. Move them into the image by hand (or remove them), then run the move again.`,
  );
}
