/**
 * Cleaning up after tests that mount disk images: everything mounted below a test's own base directory
 * is unmounted (deepest first, by its exact mount point), and every loop device still attached to a
 * file below it is detached (by its exact device). Nothing outside the base is touched.
 */
import { existsSync, readdirSync } from 'node:fs';
import { loopBackingFile, readMountTable } from '../../src/workspaces/mount-table.ts';

/** Unmounts every mount below `base` (deepest first) and detaches the loop devices of files below it. */
export async function releaseMountsUnder(base: string): Promise<void> {
  const below = (path: string) => path.startsWith(`${base}/`);
  const points = readMountTable()
    .map((entry) => entry.mountPoint)
    .filter(below)
    .sort((left, right) => right.length - left.length);
  for (const point of points) {
    const child = Bun.spawn(['umount', point], { stdio: ['ignore', 'ignore', 'pipe'] });
    if ((await child.exited) !== 0)
      throw new Error(`umount ${point}: ${await new Response(child.stderr).text()}`);
  }
  const loops = existsSync('/sys/block')
    ? readdirSync('/sys/block').filter((name) => /^loop\d+$/.test(name))
    : [];
  for (const name of loops) {
    const device = `/dev/${name}`;
    const file = loopBackingFile(device);
    if (file !== undefined && below(file)) {
      const child = Bun.spawn(['losetup', '-d', device], { stdio: ['ignore', 'ignore', 'pipe'] });
      await child.exited;
    }
  }
}
