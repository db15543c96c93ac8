/**
 * What a disk quota may be: the sizes a workspace's ext4 image can take. One rule for the default
 * (`MANGO_USER_DISK_BYTES`) and for a user's own quota (`mango user quota`), so both are refused with
 * the same words.
 *
 * - At least 4 MiB: below that the filesystem's own structures (a 1 MiB journal, inode tables) leave
 *   almost nothing for files.
 * - Whole mebibytes: every block size ext4 picks (1 KiB for small images, 4 KiB from 512 MiB) divides
 *   it, so the image is exactly the quota and `df` inside shows it.
 * - At most 16 TiB, ext4's limit with 4 KiB blocks on the hosts we target.
 */
import { formatBytes } from './byte-size.ts';

export const MIN_DISK_QUOTA_BYTES = 4 * 1024 * 1024;
export const DISK_QUOTA_STEP_BYTES = 1024 * 1024;
export const MAX_DISK_QUOTA_BYTES = 16 * 1024 ** 4;

/** What every valid quota is, for refusals. */
export const DISK_QUOTA_EXPECTED = `a whole number of MiB from ${formatBytes(MIN_DISK_QUOTA_BYTES)} to ${formatBytes(MAX_DISK_QUOTA_BYTES)} (bytes, or with KiB, MiB, GiB, TiB)`;

/** Why `bytes` cannot be a disk quota, or undefined when it can. */
export function diskQuotaProblem(bytes: number): string | undefined {
  if (!Number.isSafeInteger(bytes) || bytes < MIN_DISK_QUOTA_BYTES) {
    return `a disk quota is at least ${formatBytes(MIN_DISK_QUOTA_BYTES)} (${MIN_DISK_QUOTA_BYTES} bytes)`;
  }
  if (bytes > MAX_DISK_QUOTA_BYTES) {
    return `a disk quota is at most ${formatBytes(MAX_DISK_QUOTA_BYTES)} (${MAX_DISK_QUOTA_BYTES} bytes)`;
  }
  if (bytes % DISK_QUOTA_STEP_BYTES !== 0) {
    return `a disk quota is a whole number of MiB (a multiple of ${DISK_QUOTA_STEP_BYTES} bytes)`;
  }
  return undefined;
}
