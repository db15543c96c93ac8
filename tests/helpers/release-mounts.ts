/**
 * Cleaning up after tests that mount disk images: everything mounted below a test's own base directory
 * is unmounted (deepest first, by its exact mount point), and every loop device still attached to a
 * file below it is detached (by its exact device). Nothing outside the base is touched.
 */
import { existsSync, readdirSync } from 'node:fs';
import { loopBackingFile, readMountTable } from '../../src/workspaces/mount-table.ts';
import { runSystemProgram } from '../../src/workspaces/system-program.ts';

/** Unmounts every mount below `base` (deepest first) and detaches the loop devices of files below it. */
export async function releaseMountsUnder(base: string): Promise<void> {
  const below = (path: string) => path.startsWith(`${base}/`);
  const points = readMountTable()
    .map((entry) => entry.mountPoint)
    .filter(below)
    .sort((left, right) => right.length - left.length);
  for (const point of points) {
    // The system directories' programs, whatever PATH the run has (a PATH without /usr/sbin, say).
    await runSystemProgram('umount', [point]);
  }
  const loops = existsSync('/sys/block')
    ? readdirSync('/sys/block').filter((name) => /^loop\d+$/.test(name))
    : [];
  for (const name of loops) {
    const device = `/dev/${name}`;
    const file = loopBackingFile(device);
    if (file !== undefined && below(file)) {
      // Best effort, as before: a device the kernel detaches itself once unmounted may be gone already.
      await runSystemProgram('losetup', ['-d', device]).catch(() => undefined);
    }
  }
}
