/**
 * The final step of write_file and edit_file: replace (or create) the file atomically at a path whose
 * directory is verified for writing against the access policy, then record the new content in the chat's
 * ledger so a second write needs no re-read.
 *
 * `target` is a real path (decided already). Missing parent directories are created and then checked to
 * be where the decision expected them: if a directory on the way was swapped for a symlink in between,
 * the directories just created (elsewhere) are removed again and nothing is written.
 */
import { lchown, mkdir, realpath, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { getAccessPolicy } from '../access/access-policy.ts';
import { ToolExecutionError, ToolPermissionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { writeFileAtomically } from './atomic-write.ts';
import { describeSystemError } from './describe-system-error.ts';
import { countLines, recordWrite, sha256Hex } from './freshness.ts';

export interface ReplaceFileResult {
  real: string;
  sha256: string;
}

/**
 * Creates the missing parents of `directory` (a real path), proves they landed at that path, and gives
 * each created one to `owner` (the shell sandbox's uid, when commands run as one).
 */
async function createParentDirectories(
  directory: string,
  shown: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  const first = await mkdir(directory, { recursive: true });
  if (first === undefined) return; // nothing created: the existing directory is verified with the file
  if ((await realpath(directory)) === directory) {
    if (owner !== undefined) {
      for (let current = directory; ; current = dirname(current)) {
        await lchown(current, owner.uid, owner.gid);
        if (current === first || dirname(current) === current) break;
      }
    }
    return;
  }
  // Empty directories only, deepest first, back to the first one created: nothing else is touched.
  for (let current = directory; ; current = dirname(current)) {
    await rmdir(current).catch(() => {});
    if (current === first || dirname(current) === current) break;
  }
  throw new ToolPermissionError(
    `Cannot write ${JSON.stringify(shown)}: a directory on its path was replaced by a link while it was being created, so nothing was written.`,
  );
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
  try {
    await createParentDirectories(dirname(target), shown, owner);
    const written = await writeFileAtomically(target, data, {
      mode,
      create: mode === undefined,
      ...(owner === undefined ? {} : { owner }),
      verifyTarget: async (realTarget) => policy.require(realTarget, 'write', shown, realTarget),
    });
    const sha256 = sha256Hex(data);
    await recordWrite(context.ledger, {
      path: written.path,
      sha256,
      size: written.size,
      mtimeMs: written.mtimeMs,
      totalLines: countLines(data),
    });
    return { real: written.path, sha256 };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EEXIST') {
      throw new ToolExecutionError(
        `Cannot create ${JSON.stringify(shown)}: a file appeared there while writing. Read it with read_file before overwriting it.`,
      );
    }
    throw describeSystemError(error, 'write', shown);
  }
}
