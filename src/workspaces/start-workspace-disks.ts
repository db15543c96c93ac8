/**
 * The disk quotas when a server starts: every image in the disks directory is mounted at its
 * workspace's path (after a reboot, or a crash that took the mounts with it), and one line says what
 * holds: quotas off, unavailable (why), or on (the default, how many are mounted, which failed, and how
 * many workspaces are still plain directories that `mango workspace move-to-image` would move).
 */
import { formatBytes } from '../config/byte-size.ts';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import type { DiskQuotaAvailability } from './disk-quota-probe.ts';
import type { WorkspaceDisks } from './workspace-disks.ts';
import { isBareMountPoint } from './workspace-mount-point.ts';

export type DiskQuotaSummary =
  | { state: 'off'; workspacesDirectory: string }
  | {
      state: 'on';
      availability: DiskQuotaAvailability;
      defaultQuotaBytes: number | undefined;
      disksDirectory: string;
      workspacesDirectory: string;
      mounted: number;
      /** `<userId>: <why>` for each image that could not be mounted. */
      failed: string[];
      /** Personal workspaces that are plain directories still. */
      plain: number;
    };

const USER_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** Mounts every user's image (none are made here) and counts the plain workspaces. */
export async function mountWorkspaceDisks(disks: WorkspaceDisks): Promise<DiskQuotaSummary> {
  const users = disks.usersWithImages();
  const workspacesDirectory = disks.workspacesDirectory;
  if (users.length === 0 && disks.defaultQuotaBytes === undefined)
    return { state: 'off', workspacesDirectory };
  const availability = await disks.availability();
  let mounted = 0;
  const failed: string[] = [];
  let plain = 0;
  await withHeldDirectory(HeldDirectory.open(workspacesDirectory), async (parent) => {
    for (const userId of users) {
      try {
        await disks.preparePersonal(parent, userId, async () => undefined);
        mounted += 1;
      } catch (error) {
        failed.push(`${userId}: ${(error as Error).message}`);
      }
    }
    const withImage = new Set(users);
    const device = parent.stat().dev;
    for (const entry of parent.entriesSync()) {
      if (!USER_ID.test(entry.name) || withImage.has(entry.name)) continue;
      const stats = parent.statEntry(entry.name);
      if (stats.isDirectory() && stats.dev === device && !isBareMountPoint(parent, entry.name, stats))
        plain += 1;
    }
  });
  return {
    state: 'on',
    availability,
    defaultQuotaBytes: disks.defaultQuotaBytes,
    disksDirectory: disks.disksDirectory,
    workspacesDirectory,
    mounted,
    failed,
    plain,
  };
}

function count(number: number, singular: string, plural: string): string {
  return `${number} ${number === 1 ? singular : plural}`;
}

/** The start-up line. */
export function describeDiskQuotas(summary: DiskQuotaSummary): string {
  if (summary.state === 'off') {
    return `Workspace disk quotas are off (MANGO_USER_DISK_BYTES is unset): a user's workspace can fill the disk of ${summary.workspacesDirectory}.`;
  }
  const plain =
    summary.plain === 0
      ? ''
      : ` ${count(summary.plain, 'workspace is a plain directory', 'workspaces are plain directories')} without a quota: stop the server and run \`mango workspace move-to-image --all\`.`;
  const failed =
    summary.failed.length === 0 ? '' : ` Not mounted, so unusable until fixed: ${summary.failed.join('; ')}`;
  if (!summary.availability.available) {
    return `Workspace disk quotas are unavailable: ${summary.availability.reason}. New workspaces are plain directories on the disk of ${summary.workspacesDirectory}.${failed}`;
  }
  const quota =
    summary.defaultQuotaBytes === undefined
      ? 'for users given one with `mango user quota`'
      : `${formatBytes(summary.defaultQuotaBytes)} per user (\`mango user quota\` sets one user's)`;
  return `Workspace disk quotas: ${quota}, each personal workspace an ext4 image in ${summary.disksDirectory}; ${count(summary.mounted, 'image', 'images')} mounted.${plain}${failed}`;
}
