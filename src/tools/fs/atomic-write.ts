/**
 * Atomic file replacement for write_file, edit_file and uploads: a temp file in the same directory, then
 * a rename, with the old file's mode and owner. A rename replaces the name, never the old inode, so a
 * hard link elsewhere keeps its content (docs/decisions/2026-12-01-hard-links.md). A failed write leaves
 * the old file untouched and no temp file behind.
 *
 * The tenant may change the directory while this runs, so nothing here acts by name outside the held
 * parent directory, and nothing in it follows a link:
 * - the parent is held open (`HeldDirectory`, links refused on every component), and its descriptor's
 *   real location is handed to `verifyTarget` before anything is created, so the policy judges the
 *   directory actually written into;
 * - the temp file is created `O_CREAT | O_EXCL` in the held parent, links refused, and written, given
 *   its owner (`fchown`) and its mode (`fchmod`) through its own descriptor — never by name, so a temp
 *   name swapped for a link cannot redirect them;
 * - the old file's mode and owner are read through the held parent with links refused;
 * - a rename in the held parent gives the temp file the target's name (for a created file a link, which
 *   fails if a file appeared meanwhile, so it is never clobbered, then the temp name's removal), and the
 *   name is checked to hold the temp file's inode afterwards; size and mtime come from the temp file's
 *   own `fstat`. Creating and renaming run on `node:fs`'s threads through the held directory's
 *   `/proc/self/fd` entry (they may wait for the journal, which must not stall the event loop);
 * - a temp name left behind by a failure is removed through the held parent only;
 * - with a disk quota, a write the user's share cannot hold is refused before the temp file exists, and
 *   ENOSPC or EDQUOT at any step is reported as `quota_exceeded` with the used figure and the limit,
 *   measured once the temp file is gone (workspace-room.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { assertEntryName, HeldDirectory, withHeldDirectory } from '../../descriptors/held-directory.ts';
import { realPathOfDescriptor } from './open-verified-file.ts';
import { PathChangedError } from './path-changed-error.ts';
import { diskUsageOf, isNoRoomError, noRoomError, requireRoomFor } from './workspace-room.ts';

export interface AtomicWriteOptions {
  /**
   * Permission bits to give the new file. Omitted, a replaced file keeps its own (read through the held
   * parent) and a created one gets 0666 narrowed by the umask.
   */
  mode?: number;
  /** The target must not exist: the rename fails if something appeared there meanwhile. */
  create?: boolean;
  /** Called with the real path the rename will produce; throws to abort the write. */
  verifyTarget: (realTarget: string) => Promise<void>;
  /**
   * Who owns a created file (a replaced one keeps its owner). Given to the temp file's descriptor before
   * it takes the target's name, so the file never appears with the wrong owner. Undefined leaves it to
   * the process's own uid and gid.
   */
  owner?: { uid: number; gid: number } | undefined;
  /** The disk quota of the workspace written into (see workspace-room.ts); undefined = none. */
  quotaBytes?: number | undefined;
}

/** Whether this process may give files away (only root may chown to another uid). */
const mayChown = typeof process.getuid === 'function' && process.getuid() === 0;

export interface AtomicWriteResult {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Writes `target` (a real path) through its parent directory, held for the duration of the write. */
export function writeFileAtomically(
  target: string,
  data: Uint8Array,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  return withHeldDirectory(HeldDirectory.open(dirname(target)), (parent) =>
    writeFileAtomicallyIn(parent, basename(target), data, options),
  );
}

/** The old file at `name`, described without following a link; a non-regular entry is refused. */
function existingFile(parent: HeldDirectory, name: string): Stats {
  const stats = parent.statEntry(name);
  if (!stats.isFile()) throw new PathChangedError(`The file ${join(parent.path, name)}`);
  return stats;
}

/** Writes the file `name` in the held directory `parent` (see the module comment). */
export async function writeFileAtomicallyIn(
  parent: HeldDirectory,
  name: string,
  data: Uint8Array,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  assertEntryName(name, join(parent.path, name));
  const realTarget = join(await realPathOfDescriptor(parent, parent.path), name);
  await options.verifyTarget(realTarget);
  requireRoomFor(parent, data.length, options.quotaBytes);
  try {
    return await replaceThroughTemporary(parent, name, realTarget, data, options);
  } catch (error) {
    // The temp file is gone by now, so the figures are the workspace as the write left it.
    if (!isNoRoomError(error)) throw error;
    let usage: ReturnType<typeof diskUsageOf> | undefined;
    try {
      usage = diskUsageOf(parent);
    } catch {
      usage = undefined;
    }
    throw noRoomError(error, usage, options.quotaBytes) ?? error;
  }
}

/** The temp file, its owner and mode, and the rename (see the module comment). */
async function replaceThroughTemporary(
  parent: HeldDirectory,
  name: string,
  realTarget: string,
  data: Uint8Array,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  const existing = options.create ? undefined : existingFile(parent, name);
  const temporary = `.${name}.${randomBytes(6).toString('hex')}.mango-tmp`;
  const handle = await parent.createFile(temporary, options.mode ?? 0o666);
  let placed = false;
  try {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written);
      written += bytesWritten;
    }
    await handle.datasync();
    // Owner first: a change of owner clears the set-id bits, which the mode then sets as asked.
    const owner = options.create ? options.owner : existing;
    if (mayChown && owner !== undefined) await handle.chown(owner.uid, owner.gid);
    const mode = options.mode ?? (existing === undefined ? undefined : existing.mode & 0o7777);
    // The create mode was narrowed by the umask; the old file's bits are restored exactly.
    if (mode !== undefined) await handle.chmod(mode);
    const stats = await handle.stat();
    await handle.close();
    try {
      await parent.renameAsync(temporary, parent, name, { noReplace: options.create === true });
    } catch (error) {
      // The temp name is gone: the tenant moved the file away while it was being written.
      if ((error as { code?: unknown }).code === 'ENOENT')
        throw new PathChangedError(`The temp file for ${realTarget}`);
      throw error;
    }
    placed = true;
    const landed = parent.statEntry(name);
    if (landed.ino !== stats.ino || landed.dev !== stats.dev) {
      throw new PathChangedError(`The temp file for ${realTarget}`);
    }
    return { path: realTarget, size: stats.size, mtimeMs: stats.mtimeMs };
  } finally {
    if (!placed) {
      await handle.close().catch(() => {});
      try {
        parent.removeFile(temporary);
      } catch {
        // Already gone (moved away by the tenant); whatever took the name is theirs.
      }
    }
  }
}
