/**
 * Disk quotas of personal workspaces: each user's workspace can be an ext4 image of its own
 * (`<MANGO_DATA_DIR>/disks/<userId>.ext4`), loop-mounted at `<MANGO_WORKSPACES_DIR>/<userId>`. What a
 * user's commands and the server write there lands in the image, so the kernel ends every write at the
 * quota (ENOSPC), and nothing a user does fills the disk the database and everyone else share.
 *
 * Guarantees:
 * - A workspace that has an image is used only while that image is mounted at its path (the mount table
 *   says which loop device, and that device's file is the image); when it is not, it is mounted before
 *   the call goes on, or the call fails. The bare directory underneath (root's, mode 0000) is never
 *   handed out as the workspace.
 * - A new workspace of a user with a quota (their own, or `MANGO_USER_DISK_BYTES`) is made as an image
 *   when this process can mount one (root; `disk-quota-probe.ts`), else as a plain directory, as before
 *   quotas existed: the start-up line says which. An existing plain workspace stays plain until
 *   `mango workspace move-to-image` moves it.
 * - Everything that makes, mounts or changes an image holds that user's lock (`<userId>.lock` in the
 *   disks directory, `flock`), so servers and `mango` commands on one host never mount an image twice
 *   or change one another process is mounting.
 * - The image is changed offline (checked, grown, its reserve set) only while no loop device has it:
 *   a kernel that had it mounted, in any namespace, keeps it attached.
 * - The quota is the image's size less the blocks reserved for root (ext4-image.ts): raising it grows
 *   the image, lowering it reserves the difference; a quota below what the workspace uses is refused.
 */
import { existsSync, readdirSync, realpathSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { acquireFileLock, type FileLock, FileLockBusyError } from '../descriptors/file-lock.ts';
import { type HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import { openPrivateDirectory } from '../descriptors/private-directory.ts';
import { type DiskQuotaAvailability, probeDiskQuotas } from './disk-quota-probe.ts';
import {
  checkExt4Image,
  filesystemBytes,
  fitExt4ImageToQuota,
  growMountedExt4Image,
  makeExt4Image,
  readExt4Superblock,
  reservableBlocks,
  setReservedBlocks,
} from './ext4-image.ts';
import { imageMountAt, mountImage, unmountImage } from './image-mount.ts';
import { loopDevicesBacking } from './mount-table.ts';
import { UserDiskLocks } from './user-disk-lock.ts';
import { WorkspaceDiskError } from './workspace-disk-error.ts';
import { finishNewImageRoot, isBareMountPoint, MOUNT_POINT_MODE } from './workspace-mount-point.ts';
import type { WorkspaceOwner } from './workspace-ownership.ts';
import type { WorkspaceRepository } from './workspace-repository.ts';

export interface WorkspaceDisksOptions {
  /** Absolute path of the data directory; images live in its `disks/`. */
  dataDirectory: string;
  /** Real path of the workspaces directory. */
  workspacesDirectory: string;
  /** `MANGO_USER_DISK_BYTES`: the quota of users without their own; undefined = none. */
  defaultQuotaBytes: number | undefined;
  repository: Pick<WorkspaceRepository, 'diskQuota' | 'setDiskQuota'>;
  /** Whether this process is root (default: its uid is 0). */
  root?: boolean;
}

/** What the workspace service learns about a personal workspace. */
export interface PersonalDisk {
  /** True: the workspace is its image, mounted now; false: a plain directory (no quota). */
  imageBacked: boolean;
}

export class WorkspaceDisks {
  readonly #options: WorkspaceDisksOptions;
  readonly #root: boolean;
  readonly #disksPath: string;
  #availability: Promise<DiskQuotaAvailability> | undefined;
  readonly #locks: UserDiskLocks;

  constructor(options: WorkspaceDisksOptions) {
    this.#options = options;
    this.#root = options.root ?? process.getuid?.() === 0;
    this.#disksPath = join(realpathSync(options.dataDirectory), 'disks');
    this.#locks = new UserDiskLocks(this.#disksPath);
  }

  /** `<MANGO_DATA_DIR>/disks`, real path. */
  get disksDirectory(): string {
    return this.#disksPath;
  }

  get defaultQuotaBytes(): number | undefined {
    return this.#options.defaultQuotaBytes;
  }

  imagePath(userId: string): string {
    return join(this.#disksPath, `${userId}.ext4`);
  }

  /** Where `mango workspace move-to-image` copies a workspace before the image takes its place. */
  partialImagePath(userId: string): string {
    return join(this.#disksPath, `${userId}.ext4.partial`);
  }

  /** Real path of the workspaces directory. */
  get workspacesDirectory(): string {
    return this.#options.workspacesDirectory;
  }

  workspacePath(userId: string): string {
    return join(this.#options.workspacesDirectory, userId);
  }

  /** Whether images can be made and mounted by this process (probed once, on first need). */
  availability(): Promise<DiskQuotaAvailability> {
    this.#availability ??= this.#probe();
    return this.#availability;
  }

  async #probe(): Promise<DiskQuotaAvailability> {
    if (!this.#root) return probeDiskQuotas(this.#disksPath, false);
    openPrivateDirectory(this.#disksPath).close();
    return probeDiskQuotas(this.#disksPath, true);
  }

  /** Stores the user's own quota (undefined: back to the default); false when no such user. */
  storeQuota(userId: string, bytes: number | undefined): Promise<boolean> {
    return this.#options.repository.setDiskQuota(userId, bytes);
  }

  /** The user's own quota, else the default; undefined when neither is set. */
  async configuredQuota(userId: string): Promise<number | undefined> {
    return (await this.#options.repository.diskQuota(userId)) ?? this.#options.defaultQuotaBytes;
  }

  /**
   * The quota of the user's image-backed workspace: the configured one, else the image's own size (an
   * image made while a quota was configured keeps being that size after the setting is removed).
   */
  async quotaOf(userId: string, mounted?: HeldDirectory): Promise<number> {
    const configured = await this.configuredQuota(userId);
    if (configured !== undefined) return configured;
    if (mounted !== undefined) {
      const stats = statfsSync(`/proc/self/fd/${mounted.fd}`);
      return stats.blocks * stats.bsize;
    }
    return filesystemBytes(readExt4Superblock(this.imagePath(userId)));
  }

  /** Runs `action` holding the user's disk lock, with the disks directory held (user-disk-lock.ts). */
  withUserLock<T>(userId: string, action: (disks: HeldDirectory) => Promise<T>): Promise<T> {
    return this.#locks.withLock(userId, action);
  }

  /**
   * Makes sure the personal workspace `userId` in the held workspaces directory `parent` is usable:
   * its image mounted (made first for a new workspace of a user with a quota), or a plain directory
   * left to the caller. `ownerOf` is asked only when an image is made.
   * @throws WorkspaceDiskError when the workspace has an image that cannot be mounted, or is being moved.
   */
  async preparePersonal(
    parent: HeldDirectory,
    userId: string,
    ownerOf: () => Promise<WorkspaceOwner | undefined>,
  ): Promise<PersonalDisk> {
    const entry = parent.statEntryIfPresent(userId);
    const hasImage = existsSync(this.imagePath(userId));
    // The fast path of every call: a mount on the path means the image is in place.
    if (entry?.isDirectory() && entry.dev !== parent.stat().dev) return { imageBacked: hasImage };
    if (!hasImage && existsSync(this.partialImagePath(userId))) throw this.#moving(userId);
    if (!hasImage) {
      // A plain workspace stays plain (until moved); only a new one may become an image.
      if (entry !== undefined && !isBareMountPoint(parent, userId, entry)) return { imageBacked: false };
      if ((await this.configuredQuota(userId)) === undefined) return { imageBacked: false };
      if (!(await this.availability()).available) return { imageBacked: false };
    } else {
      await this.#requireAvailable(userId);
    }
    await this.withUserLock(userId, async (disks) => {
      let fresh = false;
      if (!existsSync(this.imagePath(userId))) {
        if (existsSync(this.partialImagePath(userId))) throw this.#moving(userId);
        await this.#createImage(disks, userId, ownerOf);
        fresh = true;
      }
      await this.mountLocked(parent, userId, { fresh });
    });
    return { imageBacked: true };
  }

  /** @throws WorkspaceDiskError `unavailable` with the reason when this process cannot mount images. */
  async requireAvailable(): Promise<void> {
    const availability = await this.availability();
    if (!availability.available) {
      throw new WorkspaceDiskError(
        'unavailable',
        `Disk images cannot be changed by this process: ${availability.reason}.`,
      );
    }
  }

  async #requireAvailable(userId: string): Promise<void> {
    const availability = await this.availability();
    if (availability.available) return;
    throw new WorkspaceDiskError(
      'image_unusable',
      `The personal workspace ${this.workspacePath(userId)} lives on the disk image ${this.imagePath(userId)}, which is not mounted, and this process cannot mount it: ${availability.reason}.`,
    );
  }

  #moving(userId: string): WorkspaceDiskError {
    return new WorkspaceDiskError(
      'move_in_progress',
      `The personal workspace ${this.workspacePath(userId)} is being moved onto its disk image and cannot be used until that is done: with the server stopped, run \`mango workspace move-to-image\` for this user again to finish it.`,
    );
  }

  /** Makes the user's image (mkfs in a new file, then its final name) and the bare mount point. */
  async #createImage(
    disks: HeldDirectory,
    userId: string,
    ownerOf: () => Promise<WorkspaceOwner | undefined>,
  ): Promise<void> {
    const quota = await this.configuredQuota(userId);
    if (quota === undefined) throw new Error(`No disk quota is configured for ${userId}.`);
    const name = `${userId}.ext4`;
    const fresh = `${name}.new`;
    // Left by a process that died while making it; the lock says no one is making it now.
    if (disks.statEntryIfPresent(fresh) !== undefined) disks.removeFile(fresh);
    const handle = await disks.createFile(fresh, 0o600);
    try {
      await handle.truncate(quota);
    } finally {
      await handle.close();
    }
    await makeExt4Image(join(disks.path, fresh), quota, { owner: await ownerOf() });
    disks.rename(fresh, disks, name, { noReplace: true });
  }

  /**
   * Mounts the user's image at their workspace path unless it is there already, the caller holding the
   * user's lock. The mount point is made (bare) when missing. A `fresh` image (made just now) gets its
   * root's mode and loses mkfs's `lost+found` once mounted.
   */
  async mountLocked(parent: HeldDirectory, userId: string, options: { fresh?: boolean } = {}): Promise<void> {
    const image = this.imagePath(userId);
    const path = this.workspacePath(userId);
    let entry = parent.statEntryIfPresent(userId);
    if (entry === undefined) {
      parent.createDirectory(userId, MOUNT_POINT_MODE);
      entry = parent.statEntry(userId);
    }
    if (!entry.isDirectory()) {
      throw new WorkspaceDiskError(
        'image_unusable',
        `${path} is not a directory; its disk image ${image} cannot be mounted there.`,
      );
    }
    if (entry.dev !== parent.stat().dev) {
      if (imageMountAt(path, image) !== undefined) return;
      throw new WorkspaceDiskError(
        'image_unusable',
        `Something other than the disk image ${image} is mounted at the personal workspace ${path}; no tool may run there until an operator unmounts it.`,
      );
    }
    const devices = loopDevicesBacking(image);
    if (devices.length > 1) {
      throw new WorkspaceDiskError(
        'image_unusable',
        `The disk image ${image} is attached to ${devices.join(' and ')} at once; mounting it again could corrupt it. An operator must unmount and detach them (\`losetup -d\`).`,
      );
    }
    if (devices.length === 0) {
      await checkExt4Image(image);
      await this.#fitToQuota(image, await this.quotaOf(userId));
      await withHeldDirectory(parent.openDirectory(userId), (point) => mountImage({ image }, point.fd));
    } else {
      // Still mounted elsewhere (a sandbox's namespace): the same device shares its one filesystem.
      await withHeldDirectory(parent.openDirectory(userId), (point) =>
        mountImage({ device: devices[0]! }, point.fd),
      );
    }
    if (imageMountAt(path, image) === undefined) {
      throw new WorkspaceDiskError(
        'image_unusable',
        `The disk image ${image} was mounted at ${path} but the mount table does not show it there.`,
      );
    }
    if (options.fresh)
      await withHeldDirectory(parent.openDirectory(userId), (root) => finishNewImageRoot(root));
  }

  /** Makes the unattached image fit the quota (ext4-image.ts `fitExt4ImageToQuota`). */
  async #fitToQuota(image: string, quota: number): Promise<void> {
    await fitExt4ImageToQuota(image, quota);
  }

  /** {@link #fitToQuota} for the user's unattached image, the caller holding the user's lock. */
  async refitLocked(userId: string, quota: number): Promise<void> {
    await this.#fitToQuota(this.imagePath(userId), quota);
  }

  /**
   * Makes the mounted image (on `device`) hold `quota` without unmounting it: grown online, or its
   * excess reserved. False when that cannot be done mounted (the kernel refuses an online grow, or the
   * excess is more than a reserve may be); nothing is changed then but the image file's length.
   */
  async refitMounted(userId: string, device: string, quota: number): Promise<boolean> {
    const path = this.workspacePath(userId);
    const before = statfsSync(path);
    if (quota > before.blocks * before.bsize) {
      try {
        await growMountedExt4Image(this.imagePath(userId), device, quota);
      } catch {
        return false;
      }
    }
    const stats = statfsSync(path);
    const excess = Math.max(0, stats.blocks * stats.bsize - quota) / stats.bsize;
    if (excess > reservableBlocks({ blockCount: stats.blocks })) return false;
    await setReservedBlocks(device, excess);
    return true;
  }

  /** Takes the image off the workspace path (see workspace-quota-change.ts). */
  unmountLocked(userId: string): Promise<void> {
    return unmountImage(this.workspacePath(userId));
  }

  /** Holds a shared lock while a server runs, so a move (which wants it alone) knows to refuse. */
  holdWhileServing(): Promise<FileLock> {
    return withHeldDirectory(openPrivateDirectory(this.#disksPath), (disks) =>
      acquireFileLock(disks, 'servers.lock', { mode: 'shared', timeoutMs: 0 }),
    );
  }

  /**
   * The lock servers share while they run, taken alone: what a move holds so that no server on this
   * host uses the workspaces meanwhile.
   * @throws WorkspaceDiskError `move_refused` while a server holds its share.
   */
  async requireNoServer(): Promise<FileLock> {
    const disks = openPrivateDirectory(this.#disksPath);
    try {
      return await acquireFileLock(disks, 'servers.lock', { mode: 'exclusive', timeoutMs: 0 });
    } catch (error) {
      if (!(error instanceof FileLockBusyError)) throw error;
      throw new WorkspaceDiskError(
        'move_refused',
        `A server is running with this data directory (it holds ${error.path}): stop it first. Moving a workspace needs it unused.`,
      );
    } finally {
      disks.close();
    }
  }

  /** The users that have an image (from the image files' names). */
  usersWithImages(): string[] {
    if (!existsSync(this.#disksPath)) return [];
    return readdirSync(this.#disksPath)
      .filter((name) => /^[A-Za-z0-9_-]{1,100}\.ext4$/.test(name))
      .map((name) => name.slice(0, -'.ext4'.length))
      .sort();
  }
}
