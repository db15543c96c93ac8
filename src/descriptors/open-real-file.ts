/**
 * Opening one object at an absolute real path with links refused on every component, the last one
 * included: a path decided by the access policy names no link, so a link met now was swapped in after
 * the decision, and the open fails (`ELOOP`) instead of reaching wherever the link points.
 */
import type { FileHandle } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { reopenDescriptor } from './held-directory.ts';
import {
  AT_FDCWD,
  closeDescriptor,
  O_NOFOLLOW,
  openat2,
  RESOLVE_NO_MAGICLINKS,
  RESOLVE_NO_SYMLINKS,
} from './linux-file-calls.ts';
import { SystemCallError } from './system-call-error.ts';

/**
 * A FileHandle on the object at `absolute` (a real path), opened with `flags` by `openat2` and reopened
 * through its own `/proc/self/fd` entry for the asynchronous `node:fs` calls. The caller closes it.
 */
export async function openRealFile(absolute: string, flags: number): Promise<FileHandle> {
  if (!isAbsolute(absolute)) throw new SystemCallError(22, 'open file (not absolute)', absolute);
  const fd = openat2(AT_FDCWD, absolute, {
    flags: flags | O_NOFOLLOW,
    resolve: RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  });
  try {
    return await reopenDescriptor(fd, flags);
  } finally {
    closeDescriptor(fd);
  }
}
