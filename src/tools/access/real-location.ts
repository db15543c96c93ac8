/**
 * The real location of a path. `resolveRealLocation` asks the filesystem where a path really lands: every symlink resolved, also a
 * dangling one (followed by hand, so `link → /outside/new-file` is judged at `/outside/new-file`, which is
 * where a write would create it). For a tail that does not exist yet, the result is the nearest existing
 * ancestor's real path plus the remaining components.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { MangoError } from '../../errors/mango-error.ts';

/** Symlink hops followed by hand before giving up, like the kernel's ELOOP limit. */
const MAX_SYMLINK_HOPS = 40;

export interface RealLocation {
  real: string;
  exists: boolean;
}

function errorCode(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}

function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A symlink chain longer than {@link MAX_SYMLINK_HOPS}; carries `code: 'ELOOP'` like the OS error. */
export class SymlinkLoopError extends MangoError {
  constructor(message: string, options?: ErrorOptions) {
    super('ELOOP', message, options);
  }
}

/**
 * The path changed while it was being resolved: an entry the walk had just seen as a link is no longer
 * one (or is gone), or one it had just seen exist vanished. Someone is renaming or swapping components of
 * it; carries `code: 'path_changed'` like the writers' PathChangedError.
 */
export class PathChangedWhileResolvingError extends MangoError {
  constructor(message: string, options?: ErrorOptions) {
    super('path_changed', message, options);
  }
}

/**
 * The real location of an absolute, lexically normalised path. Throws only for what the caller must
 * report: a symlink loop (`ELOOP`), an unreadable ancestor (`EACCES`), or a path changing under the walk
 * (`path_changed`).
 */
export async function resolveRealLocation(absolute: string, hops = 0): Promise<RealLocation> {
  try {
    return { real: await realpath(absolute), exists: true };
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw new SymlinkLoopError(`Too many symlinks under ${absolute}.`);
    if (!isMissing(error)) throw error;
  }
  const tail: string[] = [];
  let current = absolute;
  for (;;) {
    let isSymlink: boolean;
    try {
      isSymlink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (!isMissing(error)) throw error;
      const parent = dirname(current);
      if (parent === current) return { real: join(current, ...tail), exists: false };
      tail.unshift(basename(current));
      current = parent;
      continue;
    }
    if (isSymlink) {
      // A dangling link (or one whose target's parent is missing): follow it by hand.
      if (hops >= MAX_SYMLINK_HOPS) throw new SymlinkLoopError(`Too many symlinks under ${absolute}.`);
      let link: string;
      try {
        link = await readlink(current);
      } catch (error) {
        // EINVAL: no longer a link; missing: gone since the lstat.
        if (errorCode(error) === 'EINVAL' || isMissing(error)) {
          throw new PathChangedWhileResolvingError(`${current} changed while it was resolved.`);
        }
        throw error;
      }
      const target = resolve(dirname(current), link);
      const followed = await resolveRealLocation(join(target, ...tail), hops + 1);
      return { real: followed.real, exists: false };
    }
    // `current` exists and is not a link; its ancestors may be, so ask realpath for it.
    try {
      return { real: join(await realpath(current), ...tail), exists: false };
    } catch (error) {
      // It existed at the lstat a moment ago: a component on the way was moved or swapped.
      if (isMissing(error))
        throw new PathChangedWhileResolvingError(`${current} changed while it was resolved.`);
      throw error;
    }
  }
}
