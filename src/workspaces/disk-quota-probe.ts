/**
 * Whether this process can give workspaces disk quotas, decided once by doing it: as root, with
 * e2fsprogs and util-linux installed and loop devices present, a 4 MiB image is made in the disks
 * directory, loop-mounted, measured and taken off again. Anything that fails on the way is the reason
 * quotas are unavailable, in words an operator can act on; a container that forbids mounts says so
 * here, once, instead of at every user's first call.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import { extendImageFile, makeExt4Image } from './ext4-image.ts';
import { imageMountAt, mountImage, unmountImage } from './image-mount.ts';
import { findSystemProgram } from './system-program.ts';

export type DiskQuotaAvailability = { available: true } | { available: false; reason: string };

/** The programs the quotas run, with the Debian package that brings each. */
const PROGRAMS: readonly [string, string][] = [
  ['mkfs.ext4', 'e2fsprogs'],
  ['e2fsck', 'e2fsprogs'],
  ['resize2fs', 'e2fsprogs'],
  ['tune2fs', 'e2fsprogs'],
  ['mount', 'mount'],
  ['umount', 'mount'],
  ['losetup', 'util-linux'],
];

const PROBE_BYTES = 4 * 1024 * 1024;

/** Probes in `disksDirectory` (real path, the server's own). Never throws. */
export async function probeDiskQuotas(disksDirectory: string, root: boolean): Promise<DiskQuotaAvailability> {
  if (!root) {
    return { available: false, reason: 'the server is not root (mounting a disk image needs root)' };
  }
  for (const [program, packageName] of PROGRAMS) {
    if (findSystemProgram(program) === undefined) {
      return { available: false, reason: `${program} is not installed (Debian package ${packageName})` };
    }
  }
  if (!existsSync('/dev/loop-control')) {
    return {
      available: false,
      reason: 'the host has no loop devices (/dev/loop-control is missing; `modprobe loop`)',
    };
  }
  let probe: string | undefined;
  let mountPoint: string | undefined;
  let mounted = false;
  try {
    probe = mkdtempSync(join(disksDirectory, '.probe-'));
    const image = join(probe, 'probe.ext4');
    mountPoint = join(probe, 'mount');
    mkdirSync(mountPoint, { mode: 0o700 });
    await Bun.write(image, '');
    extendImageFile(image, PROBE_BYTES);
    await makeExt4Image(image, PROBE_BYTES);
    await withHeldDirectory(HeldDirectory.open(mountPoint), (held) => mountImage({ image }, held.fd));
    mounted = true;
    if (imageMountAt(mountPoint, image) === undefined) {
      return {
        available: false,
        reason: `a probe image mounted at ${mountPoint} did not show in the mount table`,
      };
    }
    return { available: true };
  } catch (error) {
    return {
      available: false,
      reason: `a probe image could not be made and mounted: ${(error as Error).message}`,
    };
  } finally {
    // Only what the probe made: its own mount, then its own directory (never removed while mounted).
    let removable = true;
    if (mounted && mountPoint !== undefined)
      removable = await unmountImage(mountPoint).then(
        () => true,
        () => false,
      );
    if (probe !== undefined && removable) rmSync(probe, { recursive: true, force: true });
  }
}
