/**
 * `mango user quota NAME [BYTES | default]`: shows one user's disk quota and how much of it their
 * workspace uses, or sets it. A new value is stored and the user's image made to fit it at once
 * (workspaces/workspace-quota-change.ts): grown for a higher quota, its excess reserved for a lower
 * one; a quota below what the workspace uses is refused. `default` drops the user's own value, so
 * `MANGO_USER_DISK_BYTES` applies again.
 */
import { statfsSync } from 'node:fs';
import { formatBytes, parseByteSize } from '../../config/byte-size.ts';
import { DISK_QUOTA_EXPECTED, diskQuotaProblem } from '../../config/disk-quota-size.ts';
import { DatabaseUserRepository } from '../../db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../db/database-workspace-repository.ts';
import { imageMountAt } from '../../workspaces/image-mount.ts';
import { WorkspaceDiskError } from '../../workspaces/workspace-disk-error.ts';
import type { WorkspaceDisks } from '../../workspaces/workspace-disks.ts';
import { changeDiskQuota, type QuotaChange } from '../../workspaces/workspace-quota-change.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { openWorkspaceService } from '../open-workspace-service.ts';
import { type CliIo, UsageError } from '../usage-error.ts';

/** The quota BYTES names: undefined for `default`. @throws UsageError naming the rule. */
function parseQuota(text: string): number | undefined {
  if (text === 'default') return undefined;
  const bytes = parseByteSize(text);
  if (bytes === undefined) {
    throw new UsageError(`BYTES must be ${DISK_QUOTA_EXPECTED}, or "default"; got ${JSON.stringify(text)}.`);
  }
  const problem = diskQuotaProblem(bytes);
  if (problem !== undefined)
    throw new UsageError(`BYTES is refused: ${problem}; got ${JSON.stringify(text)}.`);
  return bytes;
}

function quotaText(bytes: number | undefined, own: boolean, disks: WorkspaceDisks): string {
  if (bytes === undefined)
    return 'no disk quota (MANGO_USER_DISK_BYTES is unset and they have none of their own)';
  const source = own ? 'their own' : 'the default, MANGO_USER_DISK_BYTES';
  const defaultNote =
    own && disks.defaultQuotaBytes !== undefined
      ? `; the default is ${formatBytes(disks.defaultQuotaBytes)}`
      : '';
  return `a disk quota of ${formatBytes(bytes)} (${source}${defaultNote})`;
}

/** One line on the user's image: mounted and how full, or mounted nowhere, or none. */
function imageText(disks: WorkspaceDisks, userId: string): string {
  const image = disks.imagePath(userId);
  const path = disks.workspacePath(userId);
  if (imageMountAt(path, image) !== undefined) {
    const stats = statfsSync(path);
    const used = formatBytes((stats.blocks - stats.bfree) * stats.bsize);
    return `Their workspace is the image ${image} (${formatBytes(stats.blocks * stats.bsize)}), mounted at ${path}, with ${used} used.`;
  }
  return `Their workspace has its image ${image}, not mounted now (a server mounts it at start).`;
}

function describeChange(
  name: string,
  change: QuotaChange,
  own: boolean,
  disks: WorkspaceDisks,
  userId: string,
): string {
  const head = `"${name}" now has ${quotaText(change.quotaBytes, own, disks)}.`;
  const outcome = change.outcome;
  switch (outcome.kind) {
    case 'no_image':
      return `${head} Their workspace has no disk image yet: it gets one of that size when it is made, or moved (\`mango workspace move-to-image ${name}\`, with the server stopped).`;
    case 'applied':
      return `${head} ${imageText(disks, userId)}`;
    case 'deferred':
      return `${head} Their image (${formatBytes(outcome.imageBytes)}, ${formatBytes(outcome.usedBytes)} used) is fitted to it the next time it is mounted: ${outcome.reason}.`;
  }
}

export async function userQuota(io: CliIo, name: string, value: string | undefined): Promise<number> {
  const bytes = value === undefined ? undefined : parseQuota(value);
  const config = loadCliConfig(io);
  return withCliDatabase(io, async (database) => {
    const user = await new DatabaseUserRepository(database).findByName(name);
    if (!user) {
      io.stderr(`mango: no user named "${name}".\n`);
      return 1;
    }
    const disks = openWorkspaceService(config, database).disks;
    if (disks === undefined) throw new Error('The workspace service was built without disk quotas.');
    if (value === undefined) {
      const own = await new DatabaseWorkspaceRepository(database).diskQuota(user.id);
      const hasImage = await Bun.file(disks.imagePath(user.id)).exists();
      const image = hasImage ? imageText(disks, user.id) : 'Their workspace has no disk image.';
      io.stdout(
        `"${name}" has ${quotaText(own ?? disks.defaultQuotaBytes, own !== undefined, disks)}. ${image}\n`,
      );
      return 0;
    }
    try {
      const change = await changeDiskQuota(disks, user.id, bytes);
      io.stdout(`${describeChange(name, change, bytes !== undefined, disks, user.id)}\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof WorkspaceDiskError)) throw error;
      io.stderr(`mango: "${name}": ${error.message}\n`);
      return 1;
    }
  });
}
