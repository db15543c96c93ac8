/**
 * The real host's layout for the mount plan: what kind of entry a path is (without following a final
 * symlink) and where a symlink points. An entry that cannot be inspected counts as missing, so it is
 * neither mounted nor covered.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import type { HostEntryKind, HostLayout } from './bubblewrap-mount-plan.ts';

export const hostLayout: HostLayout = {
  kind(path: string): HostEntryKind {
    try {
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return 'symlink';
      if (stats.isDirectory()) return 'directory';
      return 'file';
    } catch {
      return 'missing';
    }
  },
  readLink: (path: string) => readlinkSync(path),
};
