/**
 * Atomic file replacement for write_file and edit_file: a temp file in the same directory, then a rename,
 * with the old file's mode. A rename replaces the name, never the old inode, so a hard link elsewhere
 * keeps its content (docs/decisions/2026-12-01-hard-links.md). A failed write leaves the old file untouched and no temp file
 * behind. The temp descriptor's real directory is handed to `verifyTarget` before the rename, so the
 * policy judges the directory actually written into.
 *
 * Ownership: a replaced file keeps its owner and group (the temp file is given them before the rename);
 * a created file gets `owner` when one is given (the shell sandbox's uid, so the user's later commands
 * can change what a tool wrote). Both go through the temp descriptor, never a path.
 */
import { randomBytes } from 'node:crypto';
import { chmod, link, open, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { realPathOfDescriptor } from './open-verified-file.ts';

export interface AtomicWriteOptions {
  /** Permission bits to give the new file (the old file's, when replacing). */
  mode?: number;
  /**
   * The target must not exist: the file is linked into place (which fails if something appeared there
   * meanwhile) instead of renamed over it, so a file created by someone else is never clobbered.
   */
  create?: boolean;
  /** Called with the real path the rename will produce; throws to abort the write. */
  verifyTarget: (realTarget: string) => Promise<void>;
  /**
   * Who owns a created file (a replaced one keeps its owner). Given to the temp file's descriptor before
   * it takes the target's name, so no path (which a link could redirect) is ever chowned, and the file
   * never appears with the wrong owner. Undefined leaves it to the process's own uid and gid.
   */
  owner?: { uid: number; gid: number };
}

/** Whether this process may give files away (only root may chown to another uid). */
const mayChown = typeof process.getuid === 'function' && process.getuid() === 0;

export interface AtomicWriteResult {
  path: string;
  size: number;
  mtimeMs: number;
}

export async function writeFileAtomically(
  target: string,
  data: Uint8Array,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  const directory = dirname(target);
  const name = basename(target);
  const temporary = join(directory, `.${name}.${randomBytes(6).toString('hex')}.mango-tmp`);
  const handle = await open(temporary, 'wx', options.mode ?? 0o666);
  let renamed = false;
  try {
    const realTarget = join(dirname(await realPathOfDescriptor(handle, temporary)), name);
    await options.verifyTarget(realTarget);
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await handle.write(data, written, data.length - written);
      written += bytesWritten;
    }
    await handle.datasync();
    if (options.mode !== undefined) await chmod(temporary, options.mode);
    if (mayChown) {
      const owner = options.create ? options.owner : await stat(realTarget);
      if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
    }
    await handle.close();
    if (options.create) {
      await link(temporary, realTarget);
      renamed = true;
      await unlink(temporary);
    } else {
      await rename(temporary, realTarget);
      renamed = true;
    }
    const stats = await stat(realTarget);
    return { path: realTarget, size: stats.size, mtimeMs: stats.mtimeMs };
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await unlink(temporary).catch(() => {});
    }
  }
}
