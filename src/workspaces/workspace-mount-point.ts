/**
 * The directory a workspace's image is mounted on, and the image's root once mounted. Unmounted, the
 * directory is root's with mode 0000 and empty: nothing but root may use it, so a workspace whose image
 * is missing from its path is never a place where a user's commands could write onto the host's disk.
 * A new image's root gets the workspace's mode (0700; mkfs gave it its owner) and loses mkfs's
 * `lost+found`, which would otherwise show in every listing (e2fsck makes it again when it needs it).
 */
import type { Stats } from 'node:fs';
import type { HeldDirectory } from '../descriptors/held-directory.ts';

export const MOUNT_POINT_MODE = 0o000;

function isEmpty(parent: HeldDirectory, name: string): boolean {
  const directory = parent.openDirectory(name);
  try {
    return directory.entriesSync().length === 0;
  } finally {
    directory.close();
  }
}

/** Whether `entry` (the entry `name` of `parent`) is a bare mount point as the server makes them. */
export function isBareMountPoint(parent: HeldDirectory, name: string, entry: Stats): boolean {
  return (
    entry.isDirectory() &&
    entry.uid === 0 &&
    (entry.mode & 0o7777) === MOUNT_POINT_MODE &&
    isEmpty(parent, name)
  );
}

/** Makes a new image's root (held) a workspace: mode 0700, no `lost+found`. */
export function finishNewImageRoot(root: HeldDirectory): void {
  root.changeMode(0o700);
  try {
    root.removeDirectory('lost+found');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
}
