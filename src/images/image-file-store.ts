/**
 * Image files on disk: `<dataDirectory>/images/<user directory>/<imageId>.<ext>`. The content type is
 * read from the bytes themselves (magic numbers), never trusted from a provider's label. A write goes
 * to a temporary name first and is renamed into place, so a failed write never leaves a half file
 * under the final name.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

export interface ImageFormat {
  mimeType: string;
  extension: string;
}

function startsWith(bytes: Uint8Array, prefix: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + prefix.length) return false;
  return prefix.every((value, index) => bytes[offset + index] === value);
}

/** The format of an image from its first bytes, or undefined when it is none we serve. */
export function detectImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { mimeType: 'image/png', extension: 'png' };
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { mimeType: 'image/jpeg', extension: 'jpg' };
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return { mimeType: 'image/webp', extension: 'webp' };
  if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return { mimeType: 'image/gif', extension: 'gif' };
  return undefined;
}

/**
 * The per-user directory name: the user id itself when it is a plain token, else a hash of it, so no
 * user id can walk out of `images/`.
 */
export function getUserImageDirectoryName(userId: string): string {
  if (/^[A-Za-z0-9_-]{1,64}$/.test(userId)) return userId;
  return `u-${createHash('sha256').update(userId).digest('hex').slice(0, 32)}`;
}

/** Writes one image and returns its absolute path (a relative data directory resolves against the cwd). */
export async function writeImageFile(
  dataDirectory: string,
  userId: string,
  imageId: string,
  bytes: Uint8Array,
  format: ImageFormat,
): Promise<string> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(imageId)) throw new Error(`Invalid image id ${JSON.stringify(imageId)}.`);
  const directory = join(resolve(dataDirectory), 'images', getUserImageDirectoryName(userId));
  await mkdir(directory, { recursive: true });
  const filePath = join(directory, `${imageId}.${format.extension}`);
  const temporaryPath = `${filePath}.${process.pid}.tmp`;
  try {
    await writeFile(temporaryPath, bytes);
    await rename(temporaryPath, filePath);
  } catch (error) {
    await rm(temporaryPath, { force: true });
    throw error;
  }
  return filePath;
}
