/**
 * Image files on disk: `<dataDirectory>/images/<user directory>/<imageId>.<ext>`. The content type is
 * read from the bytes themselves (magic numbers), never trusted from a provider's label. A write goes
 * to a temporary name first and is renamed into place, so a failed write never leaves a half file
 * under the final name.
 *
 * They are the server's own, like the rest of the data directory: the data directory, `images/` and
 * each user's directory mode 0700 (created so, or narrowed when an older version left them wider), each
 * file 0600, all made through held directories (a link where a directory should be is refused).
 */
import { createHash, randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import {
  openPrivateDirectory,
  openPrivateDirectoryIn,
  PRIVATE_FILE_MODE,
} from '../descriptors/private-directory.ts';

/** The directory of the data directory holding every user's images. */
const IMAGES_DIRECTORY_NAME = 'images';

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
  const userDirectory = getUserImageDirectoryName(userId);
  const fileName = `${imageId}.${format.extension}`;
  // Unique, so a leftover of a crashed write (the same pid, later) never stands in the way.
  const temporaryName = `${fileName}.${process.pid}.${randomUUID()}.tmp`;
  await withHeldDirectory(openPrivateDirectory(dataDirectory), (data) =>
    withHeldDirectory(openPrivateDirectoryIn(data, IMAGES_DIRECTORY_NAME), (images) =>
      withHeldDirectory(openPrivateDirectoryIn(images, userDirectory), async (directory) => {
        try {
          const file = await directory.createFile(temporaryName, PRIVATE_FILE_MODE);
          try {
            // The umask may have narrowed the mode it was created with.
            await file.chmod(PRIVATE_FILE_MODE);
            await file.writeFile(bytes);
          } finally {
            await file.close();
          }
          await directory.renameAsync(temporaryName, directory, fileName);
        } catch (error) {
          removeLeftover(directory, temporaryName);
          throw error;
        }
      }),
    ),
  );
  return join(resolve(dataDirectory), IMAGES_DIRECTORY_NAME, userDirectory, fileName);
}

/** Removes the temporary file of a failed write, if it was made. */
function removeLeftover(directory: HeldDirectory, name: string): void {
  try {
    directory.removeFile(name);
  } catch {
    // Not made, or not removable: the caller gets the write's own error, which is what went wrong.
  }
}
