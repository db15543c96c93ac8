/**
 * A download in ranges (file-operations.ts `openDownload`, `readRange`), so a file of any size crosses
 * a worker's pipe in bounded pieces and nobody holds it whole:
 * - `openDownload` resolves the path, opens its real location by object with links refused on every
 *   component (`HeldDirectory.openPathHandle`, `O_RDONLY | O_NONBLOCK | O_NOCTTY`, so a FIFO returns at
 *   once), verifies the descriptor against the policy again, and `fstat` must show a regular file; it
 *   answers the size, the first bytes (for the served type) and the object's `device:inode`.
 * - `readRange` opens that real location again the same way and reads only if `fstat` shows the same
 *   regular file: a name swapped for another object, or a link, fails the range as a changed path
 *   instead of serving something else.
 */

import type { BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import { DOWNLOAD_SIGNATURE_BYTES, type DownloadOutcome, type ReadRangeRequest } from './file-operations.ts';
import { SAFE_READ_FLAGS, verifyDescriptor } from './open-verified-file.ts';
import { PathChangedError } from './path-changed-error.ts';
import { REFUSED, unlessRefused } from './unless-refused.ts';

function identityOf(stats: BigIntStats): string {
  return `${stats.dev}:${stats.ino}`;
}

/** Reads up to `length` bytes at `offset`, fewer only at the end of the file. */
async function readAt(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

export async function openDownload(path: string, context: ToolContext): Promise<DownloadOutcome> {
  const resolved = await unlessRefused(() => resolveAndValidatePath(path, context, 'path', 'read'));
  if (resolved === undefined) return REFUSED;
  let opened: { handle: FileHandle; real: string } | undefined;
  try {
    opened = await unlessRefused(async () => {
      const handle = await HeldDirectory.openPathHandle(resolved.real, SAFE_READ_FLAGS);
      try {
        return { handle, real: await verifyDescriptor(handle, resolved, context) };
      } catch (error) {
        await handle.close();
        throw error;
      }
    });
  } catch (error) {
    throw describeSystemError(error, 'open', path);
  }
  if (opened === undefined) return REFUSED;
  const { handle, real } = opened;
  try {
    const stats = await handle.stat({ bigint: true });
    if (stats.isDirectory()) return { kind: 'directory' };
    if (!stats.isFile()) return { kind: 'special' };
    const signature = await readAt(handle, 0, DOWNLOAD_SIGNATURE_BYTES);
    return { kind: 'file', real, size: Number(stats.size), signature, identity: identityOf(stats) };
  } catch (error) {
    throw describeSystemError(error, 'open', path);
  } finally {
    await handle.close();
  }
}

export async function readRange(request: ReadRangeRequest, context: ToolContext): Promise<Uint8Array> {
  (await getAccessPolicy(context)).require(request.real, 'read', request.shown, request.real);
  try {
    const handle = await HeldDirectory.openPathHandle(request.real, SAFE_READ_FLAGS);
    try {
      const stats = await handle.stat({ bigint: true });
      if (!stats.isFile() || identityOf(stats) !== request.identity) {
        throw new PathChangedError(`The file ${request.real}`);
      }
      return await readAt(handle, request.offset, request.length);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw describeSystemError(error, 'read', request.shown);
  }
}
