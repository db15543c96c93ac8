/**
 * The final step of write_file and edit_file: replace (or create) the file atomically at a path whose
 * directory is verified for writing against the access policy. The tool records the new content in the
 * chat's ledger from the result, so a second write needs no re-read.
 *
 * `target` is a real path (decided already). Missing parent directories are created through held
 * directories with links refused (`holdParentDirectory`): if a directory on the way was swapped for a
 * link in between, nothing is created or written through it. When the write fails, the directories
 * the call created are removed again. A workspace with a disk quota (its reachable root says so) gets
 * a write it has no room for refused as `quota_exceeded`, with the used figure and the limit.
 */
import { basename, dirname } from 'node:path';
import { getAccessPolicy } from '../access/access-policy.ts';
import { rootContaining } from '../access/reachable-set.ts';
import { ToolExecutionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { writeFileAtomicallyIn } from './atomic-write.ts';
import { describeSystemError } from './describe-system-error.ts';
import { holdParentDirectory } from './held-parent-directory.ts';
import { diskUsageAt, noRoomError } from './workspace-room.ts';

export interface ReplaceFileResult {
  real: string;
  /** Size and mtime of the file written, from its own descriptor. */
  size: number;
  mtimeMs: number;
}

/**
 * `mode` undefined means the file is being created: it must not exist when the write lands (a file that
 * appeared meanwhile is refused rather than overwritten unread). `owner` is who new files and
 * directories must belong to (the shell sandbox's uid, from the caller, which may ask the sandbox), or
 * undefined to keep the server's.
 */
export async function replaceFile(
  target: string,
  data: Uint8Array,
  mode: number | undefined,
  context: ToolContext,
  shown: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<ReplaceFileResult> {
  const policy = await getAccessPolicy(context);
  const root = rootContaining(context.reachable, target);
  const quotaBytes = root?.diskQuotaBytes;
  try {
    const parent = holdParentDirectory(dirname(target), owner);
    let written: Awaited<ReturnType<typeof writeFileAtomicallyIn>>;
    try {
      written = await writeFileAtomicallyIn(parent.directory, basename(target), data, {
        mode,
        create: mode === undefined,
        owner,
        quotaBytes,
        verifyTarget: async (realTarget) => policy.require(realTarget, 'write', shown, realTarget),
      });
    } catch (error) {
      parent.removeCreated();
      throw error;
    } finally {
      parent.close();
    }
    return { real: written.path, size: written.size, mtimeMs: written.mtimeMs };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') {
      throw new ToolExecutionError(
        `Cannot create ${JSON.stringify(shown)}: a file appeared there while writing. Read it with read_file before overwriting it.`,
      );
    }
    // A parent directory that could not be made: measured at the workspace's root, by descriptor.
    const noRoom = noRoomError(error, root && diskUsageAt(root.path), quotaBytes);
    if (noRoom !== undefined) throw noRoom;
    throw describeSystemError(error, 'write', shown);
  }
}
