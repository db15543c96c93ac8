/**
 * Whether a write has room, and the one answer when it has not. A personal workspace with a disk quota
 * is an ext4 image of its own, so the kernel already stops every writer at the quota with ENOSPC; this
 * module turns that into a classified `quota_exceeded` whose message says how much is used and what
 * the limit is, and refuses up front what the kernel would let the server (root) write past the
 * user's share:
 *
 * - A workspace over its quota (moved onto its image with more data than the quota, or whose quota was
 *   lowered) keeps the excess as blocks reserved for root, so the user's own commands cannot allocate
 *   until they removed files; the server writes as root, so it checks the same thing itself: no write
 *   while the workspace is over its quota, and none larger than what is left to the user (`f_bavail`,
 *   the space outside the reserve).
 * - The figures come from `statfs` on the held directory the write goes into, never on a name the
 *   tenant could swap; a write that does not seem to fit commits the filesystem first (`syncfs`), since
 *   ext4 counts the blocks of files removed a moment ago as used until its next commit. The image is mounted with `minixdf`, so its total is the image's size; the used
 *   figure counts the filesystem's own structures too, as the quota does.
 * - ENOSPC or EDQUOT from any step of a write becomes the same error; on a filesystem without a quota
 *   (a granted directory, a workspace that has no image yet) the limit named is that filesystem's size.
 */
import { statfsSync } from 'node:fs';
import { formatBytes } from '../../config/byte-size.ts';
import { descriptorPath, HeldDirectory } from '../../descriptors/held-directory.ts';
import { syncfs } from '../../descriptors/linux-file-calls.ts';
import { ToolQuotaExceededError } from '../errors.ts';

export interface DiskUsage {
  /** Blocks in use, the filesystem's own included. */
  usedBytes: number;
  /** The filesystem's size (with `minixdf`: the whole image). */
  totalBytes: number;
  /** What an unprivileged writer may still allocate (outside reserved blocks). */
  availableBytes: number;
}

/** `statfs` of the held directory's filesystem. */
export function diskUsageOf(directory: HeldDirectory): DiskUsage {
  const stats = statfsSync(descriptorPath(directory.fd));
  return {
    usedBytes: (stats.blocks - stats.bfree) * stats.bsize,
    totalBytes: stats.blocks * stats.bsize,
    availableBytes: stats.bavail * stats.bsize,
  };
}

/** The usage of the filesystem of the directory at the real path `path`, or undefined when it cannot be had. */
export function diskUsageAt(path: string): DiskUsage | undefined {
  let directory: HeldDirectory | undefined;
  try {
    directory = HeldDirectory.open(path);
    return diskUsageOf(directory);
  } catch {
    return undefined;
  } finally {
    directory?.close();
  }
}

const NOTHING_WRITTEN = 'Nothing was written.';

function overQuota(usage: DiskUsage, quotaBytes: number): ToolQuotaExceededError {
  return new ToolQuotaExceededError(
    `The workspace is over its quota (${formatBytes(usage.usedBytes)} used, limit ${formatBytes(quotaBytes)}): remove files to write again. ${NOTHING_WRITTEN}`,
  );
}

function full(
  usage: DiskUsage | undefined,
  quotaBytes: number | undefined,
  needed?: number,
): ToolQuotaExceededError {
  const needs = needed === undefined ? '' : `, and this write needs ${formatBytes(needed)}`;
  if (usage === undefined) {
    return new ToolQuotaExceededError(
      `The workspace is full (no space left on its disk)${needs}; remove files to make room. ${NOTHING_WRITTEN}`,
    );
  }
  if (quotaBytes === undefined) {
    return new ToolQuotaExceededError(
      `The disk holding this directory is full: ${formatBytes(usage.usedBytes)} of ${formatBytes(usage.totalBytes)} used${needs}; remove files to make room. ${NOTHING_WRITTEN}`,
    );
  }
  return new ToolQuotaExceededError(
    `The workspace is full: ${formatBytes(usage.usedBytes)} of ${formatBytes(quotaBytes)} used${needs}; remove files to make room. ${NOTHING_WRITTEN}`,
  );
}

/**
 * Refuses a write of `bytes` into `directory` that the user's share of a workspace with a quota cannot
 * hold (nothing is checked without a quota: the kernel's ENOSPC is the answer there).
 * @throws ToolQuotaExceededError.
 */
export function requireRoomFor(
  directory: HeldDirectory,
  bytes: number,
  quotaBytes: number | undefined,
): void {
  if (quotaBytes === undefined) return;
  let usage = diskUsageOf(directory);
  if (usage.usedBytes <= quotaBytes && bytes <= usage.availableBytes) return;
  // ext4 counts the blocks of files removed since its last commit as used until that commit (its own
  // writers retry after forcing one): commit, then measure what is really left.
  syncfs(directory.fd, directory.path);
  usage = diskUsageOf(directory);
  if (usage.usedBytes > quotaBytes) throw overQuota(usage, quotaBytes);
  if (bytes > usage.availableBytes) throw full(usage, quotaBytes, bytes);
}

/** Whether `error` is the kernel saying there is no room (ENOSPC, or EDQUOT from a filesystem quota). */
export function isNoRoomError(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * The classified error for a write that failed with ENOSPC or EDQUOT, with the figures of `usage` (the
 * filesystem written into, measured after the failed write was cleaned up); undefined for any other
 * error.
 */
export function noRoomError(
  error: unknown,
  usage: DiskUsage | undefined,
  quotaBytes: number | undefined,
): ToolQuotaExceededError | undefined {
  if (!isNoRoomError(error)) return undefined;
  if (usage !== undefined && quotaBytes !== undefined && usage.usedBytes > quotaBytes) {
    return overQuota(usage, quotaBytes);
  }
  return full(usage, quotaBytes);
}
