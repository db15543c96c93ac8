/**
 * Changing one user's disk quota (`mango user quota NAME BYTES`): the new value is stored, and the
 * user's image, when they have one, is made to fit it at once.
 *
 * - A quota below what the workspace uses now (the filesystem's own structures included) is refused,
 *   and nothing is stored.
 * - A mounted image is changed while mounted: a lower quota reserves the difference for root (the
 *   user's commands stop at the new quota at once; the image shrinks at its next mount), a higher one
 *   grows the image (`resize2fs` online). Where that cannot be done mounted (the kernel refuses to
 *   grow a mounted filesystem without CAP_SYS_RESOURCE, as in some containers; a reserve of more than
 *   half the image), the image is taken off, fitted offline and mounted again, holding the user's lock
 *   so no server mounts it meanwhile; if it is in use (a command running there), it comes as near as
 *   it may and is fitted the next time it is mounted, and the answer says so.
 * - An image mounted nowhere is fitted offline now (grown, shrunk, or its excess reserved).
 */
import { statfsSync } from 'node:fs';
import { formatBytes } from '../config/byte-size.ts';
import { DISK_QUOTA_STEP_BYTES, diskQuotaProblem } from '../config/disk-quota-size.ts';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import { syncfs } from '../descriptors/linux-file-calls.ts';
import {
  filesystemBytes,
  readExt4Superblock,
  reservableBlocks,
  setReservedBlocks,
  usedBytes,
} from './ext4-image.ts';
import { imageMountAt } from './image-mount.ts';
import { loopDevicesBacking } from './mount-table.ts';
import { WorkspaceDiskError } from './workspace-disk-error.ts';
import type { WorkspaceDisks } from './workspace-disks.ts';

export type QuotaChangeOutcome =
  /** Stored; the user has no image yet (it gets this size when made or moved). */
  | { kind: 'no_image' }
  /** Stored, and the image fits it now. */
  | { kind: 'applied'; usedBytes: number; imageBytes: number }
  /** Stored; the image grows to it the next time it is mounted, for `reason`. */
  | { kind: 'deferred'; usedBytes: number; imageBytes: number; reason: string };

export interface QuotaChange {
  /** The quota that applies now: the user's own, else the default; undefined = none. */
  quotaBytes: number | undefined;
  outcome: QuotaChangeOutcome;
}

/** How long the kernel gets to detach a loop device after its last mount went. */
const DETACH_WAIT_MS = 5_000;

async function detached(image: string): Promise<boolean> {
  const deadline = Date.now() + DETACH_WAIT_MS;
  while (loopDevicesBacking(image).length > 0) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/**
 * Sets `userId`'s own quota to `bytes` (undefined: back to the default) and fits their image to it.
 * @throws WorkspaceDiskError `quota_refused` (a value the rules refuse, or below the use) or
 * `unavailable` (the user has an image this process cannot change).
 */
export async function changeDiskQuota(
  disks: WorkspaceDisks,
  userId: string,
  bytes: number | undefined,
): Promise<QuotaChange> {
  const problem = bytes === undefined ? undefined : diskQuotaProblem(bytes);
  if (problem !== undefined)
    throw new WorkspaceDiskError('quota_refused', `The quota ${bytes} is refused: ${problem}.`);
  const quotaBytes = bytes ?? disks.defaultQuotaBytes;
  const image = disks.imagePath(userId);
  if (!(await Bun.file(image).exists())) {
    await disks.storeQuota(userId, bytes);
    return { quotaBytes, outcome: { kind: 'no_image' } };
  }
  await disks.requireAvailable();
  return disks.withUserLock(userId, async () => {
    const path = disks.workspacePath(userId);
    const mount = imageMountAt(path, image);
    let used: number;
    let size: number;
    if (mount === undefined) {
      const superblock = readExt4Superblock(image);
      used = usedBytes(superblock);
      size = filesystemBytes(superblock);
    } else {
      // Committed first: ext4 counts the blocks of files removed since its last commit as used.
      await withHeldDirectory(HeldDirectory.open(path), (mounted) => syncfs(mounted.fd, path));
      const stats = statfsSync(path);
      used = (stats.blocks - stats.bfree) * stats.bsize;
      size = stats.blocks * stats.bsize;
    }
    if (quotaBytes !== undefined && quotaBytes < used) {
      const least = Math.ceil(used / DISK_QUOTA_STEP_BYTES) * DISK_QUOTA_STEP_BYTES;
      throw new WorkspaceDiskError(
        'quota_refused',
        `The workspace uses ${formatBytes(used)} (${used} bytes), more than a quota of ${formatBytes(quotaBytes)}: remove files first, or give at least ${formatBytes(least)} (${least} bytes).`,
      );
    }
    await disks.storeQuota(userId, bytes);
    // No quota at all (neither the user's nor a default): the image keeps its size, all of it usable.
    const target = quotaBytes ?? size;
    if (mount === undefined) {
      await disks.refitLocked(userId, target);
      return {
        quotaBytes,
        outcome: { kind: 'applied', usedBytes: used, imageBytes: filesystemBytes(readExt4Superblock(image)) },
      };
    }
    if (await disks.refitMounted(userId, mount.source, target)) {
      return {
        quotaBytes,
        outcome: { kind: 'applied', usedBytes: used, imageBytes: imageSize(disks, userId) },
      };
    }
    return { quotaBytes, outcome: await refitByRemounting(disks, userId, mount.source, used, target) };
  });
}

function imageSize(disks: WorkspaceDisks, userId: string): number {
  const stats = statfsSync(disks.workspacePath(userId));
  return stats.blocks * stats.bsize;
}

/**
 * While it stays mounted, the nearest the image can come to the quota: all of it usable when it is
 * too small, else as much of the excess reserved as may be.
 */
async function reserveWhatMay(
  disks: WorkspaceDisks,
  userId: string,
  device: string,
  target: number,
): Promise<void> {
  const stats = statfsSync(disks.workspacePath(userId));
  const excess = Math.max(0, stats.blocks * stats.bsize - target) / stats.bsize;
  await setReservedBlocks(device, Math.min(excess, reservableBlocks({ blockCount: stats.blocks })));
}

/**
 * The mounted image could not be fitted to the quota in place (see the module comment): off, fitted
 * offline, on again; or, when it is in use, as near as it may come until its next mount.
 */
async function refitByRemounting(
  disks: WorkspaceDisks,
  userId: string,
  device: string,
  used: number,
  target: number,
): Promise<QuotaChangeOutcome> {
  const image = disks.imagePath(userId);
  try {
    await disks.unmountLocked(userId);
  } catch (error) {
    await reserveWhatMay(disks, userId, device, target);
    return {
      kind: 'deferred',
      usedBytes: used,
      imageBytes: imageSize(disks, userId),
      reason: `it cannot be resized while mounted, and it is in use, so it was not taken off (${(error as Error).message})`,
    };
  }
  const isDetached = await detached(image);
  // Mounted again whatever happens: from the file when detached (fitted offline first), else the device.
  await withHeldDirectory(HeldDirectory.open(disks.workspacesDirectory), (parent) =>
    disks.mountLocked(parent, userId),
  );
  if (isDetached) return { kind: 'applied', usedBytes: used, imageBytes: imageSize(disks, userId) };
  await reserveWhatMay(disks, userId, device, target);
  return {
    kind: 'deferred',
    usedBytes: used,
    imageBytes: imageSize(disks, userId),
    reason:
      "it cannot be resized while mounted, and it stays mounted elsewhere (a running command's sandbox) after it was taken off its path",
  };
}
