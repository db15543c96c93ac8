/**
 * Mounting a workspace's image at its path, and taking it off again. The mount point is handed to
 * `mount` as a descriptor the server holds (`/proc/self/fd/3`, with `--no-canonicalize` so the program
 * resolves no name of its own), so the image lands on the directory the server opened with links
 * refused, whatever a name on the way says by then. The options every image gets:
 * - `nosuid`, `nodev`: nothing in a workspace grants privileges or reaches a device on the host;
 * - `minixdf`: `statfs` (and `df` in a user's shell) reports the whole image as the filesystem's size,
 *   so the used figure counts the filesystem's own structures as the quota does;
 * - `discard`: blocks a user frees are given back to the host, so a sparse image stays as small as
 *   what it holds.
 *
 * Afterwards the mount table must show that image on that path (its loop device backed by the image's
 * real path); anything else is an error, and nothing is used.
 */
import { loopDevicesBacking, type MountEntry, mountAt } from './mount-table.ts';
import { runSystemProgram } from './system-program.ts';

const MOUNT_OPTIONS = 'nosuid,nodev,minixdf,discard';

/**
 * Mounts `source` (the image, attached to a new loop device; or a loop device the image is already
 * attached to, which shares its one superblock) on the directory held as `mountPointFd`.
 */
export async function mountImage(
  source: { image: string } | { device: string },
  mountPointFd: number,
): Promise<void> {
  const [what, options] =
    'image' in source ? [source.image, `loop,${MOUNT_OPTIONS}`] : [source.device, MOUNT_OPTIONS];
  await runSystemProgram(
    'mount',
    ['--no-canonicalize', '-t', 'ext4', '-o', options, what, '/proc/self/fd/3'],
    {
      descriptors: [mountPointFd],
    },
  );
}

/** The mount at `mountPoint` when it is `image` (through a loop device attached to it), else undefined. */
export function imageMountAt(mountPoint: string, image: string): MountEntry | undefined {
  const entry = mountAt(mountPoint);
  if (entry === undefined || entry.fsType !== 'ext4') return undefined;
  return loopDevicesBacking(image).includes(entry.source) ? entry : undefined;
}

/** Takes the mount at `mountPoint` off (never lazily: a busy mount stays, and the error says so). */
export async function unmountImage(mountPoint: string): Promise<void> {
  await runSystemProgram('umount', [mountPoint]);
}
