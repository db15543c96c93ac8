/**
 * A directory the server holds open and acts inside by descriptor. Everything a root process does in a
 * tree a tenant can change at the same moment goes through one of these: the tenant may rename, swap or
 * replace any name at any time, so no call here resolves a name the kernel could send elsewhere.
 *
 * - A directory is opened from an absolute real path with `RESOLVE_NO_SYMLINKS`: if any component is a
 *   link now, it was swapped since the path was decided, and the open fails (`ELOOP`).
 * - Below a held directory, names are resolved by `openat2` with `RESOLVE_BENEATH` and
 *   `RESOLVE_NO_MAGICLINKS`, and with `RESOLVE_NO_SYMLINKS` unless the caller asks to follow links that
 *   stay beneath.
 * - Creating, removing and renaming take one name in a held directory (`mkdirat`, `unlinkat`,
 *   `renameat2`), never a path, so a swapped parent cannot redirect them.
 * - Mode and owner change on the object's own descriptor (`fchmod`, `fchown`), never by name.
 *
 * The holder closes what it opened (`close()`; a held directory is not closed by the garbage collector).
 */
import {
  type Dirent,
  fchmodSync,
  fchownSync,
  fstatSync,
  readdirSync,
  readlinkSync,
  type Stats,
} from 'node:fs';
import { type FileHandle, link, open, readdir, rename, unlink } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import {
  AT_FDCWD,
  AT_REMOVEDIR,
  closeDescriptor,
  mkdirat,
  O_DIRECTORY,
  O_NOFOLLOW,
  O_PATH,
  O_RDONLY,
  openat2,
  RENAME_NOREPLACE,
  RESOLVE_BENEATH,
  RESOLVE_NO_MAGICLINKS,
  RESOLVE_NO_SYMLINKS,
  renameat2,
  unlinkat,
} from './linux-file-calls.ts';
import { errorCodeOf, SystemCallError } from './system-call-error.ts';

/** How links met while resolving a relative path are treated. */
export type LinkHandling =
  /** Any symlink on the way, the last component included, fails the call with `ELOOP`. */
  | 'refuse'
  /** Symlinks are followed while they stay beneath the held directory; one that leaves it is `EXDEV`. */
  | 'beneath';

function resolveFlags(links: LinkHandling): number {
  return RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (links === 'refuse' ? RESOLVE_NO_SYMLINKS : 0);
}

/** The path a held descriptor is reachable at for this process, resolved by the kernel to the object. */
export function descriptorPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** Throws EINVAL unless `name` is one path component (not empty, `.`, `..`, nor containing `/`). */
export function assertEntryName(name: string, shown = name): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) {
    throw new SystemCallError(22, 'entry name', shown);
  }
}

export class HeldDirectory {
  #fd: number;
  /** False for a view of a descriptor another thread of this process holds (`lent`). */
  readonly #owned: boolean;

  private constructor(
    fd: number,
    /** Where the directory was when it was opened: for messages, never resolved again. */
    readonly path: string,
    owned = true,
  ) {
    this.#fd = fd;
    this.#owned = owned;
  }

  /** The descriptor; -1 once closed. */
  get fd(): number {
    return this.#fd;
  }

  /**
   * A view of directory descriptor `fd`, held at the real location `path` by another thread of this
   * process (descriptors are the process's), which lends it for a piece of work: the view acts through
   * it like any held directory, and its `close` only stops using it. The lender closes the descriptor,
   * and must not before the borrower is done (a closed number may name another file next).
   */
  static lent(fd: number, path: string): HeldDirectory {
    if (!Number.isInteger(fd) || fd < 0) throw new SystemCallError(9, 'lent directory', path);
    return new HeldDirectory(fd, path, false);
  }

  /**
   * Opens the directory at `absolute`, a real path (no symlinks, no `.` or `..`). A link on any
   * component fails with `ELOOP`, a non-directory with `ENOTDIR`.
   */
  static open(absolute: string): HeldDirectory {
    if (!isAbsolute(absolute)) throw new SystemCallError(22, 'open directory (not absolute)', absolute);
    const fd = openat2(AT_FDCWD, absolute, {
      flags: O_RDONLY | O_DIRECTORY,
      resolve: RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    });
    return new HeldDirectory(fd, absolute);
  }

  /**
   * Opens the non-directory or directory at `absolute`, a real path, with `flags`; a link on any
   * component, the last one included, fails with `ELOOP`. The caller owns and closes the descriptor.
   */
  static openPath(absolute: string, flags: number): number {
    if (!isAbsolute(absolute)) throw new SystemCallError(22, 'open (not absolute)', absolute);
    return openat2(AT_FDCWD, absolute, {
      flags: flags | O_NOFOLLOW,
      resolve: RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    });
  }

  /** {@link openPath} as a FileHandle for the asynchronous `node:fs` calls (see `openHandle`). */
  static async openPathHandle(absolute: string, flags: number): Promise<FileHandle> {
    const fd = HeldDirectory.openPath(absolute, flags);
    try {
      return await reopenDescriptor(fd, flags);
    } finally {
      closeDescriptor(fd);
    }
  }

  /**
   * `fstat` of the entry at the real path `absolute` itself, like `lstat`: a link as the last component is
   * described, a link before it is `ELOOP`.
   */
  static statPath(absolute: string): Stats {
    const fd = HeldDirectory.openPath(absolute, O_PATH);
    try {
      return fstatSync(fd);
    } finally {
      closeDescriptor(fd);
    }
  }

  #live(): number {
    if (this.#fd < 0) throw new SystemCallError(9, 'held directory (closed)', this.path);
    return this.#fd;
  }

  #shown(relative: string): string {
    return relative === '' || relative === '.' ? this.path : join(this.path, relative);
  }

  /** A directory below this one (`relative` may have several components). */
  openDirectory(relative: string, links: LinkHandling = 'refuse'): HeldDirectory {
    const fd = openat2(
      this.#live(),
      relative === '' ? '.' : relative,
      { flags: O_RDONLY | O_DIRECTORY, resolve: resolveFlags(links) },
      this.#shown(relative),
    );
    return new HeldDirectory(fd, this.#shown(relative));
  }

  /**
   * Opens `relative` with `flags` (`O_NOFOLLOW` is added when links are refused). The caller owns and
   * closes the descriptor.
   */
  openDescriptor(relative: string, flags: number, mode = 0o666, links: LinkHandling = 'refuse'): number {
    return openat2(
      this.#live(),
      relative,
      { flags: flags | (links === 'refuse' ? O_NOFOLLOW : 0), mode, resolve: resolveFlags(links) },
      this.#shown(relative),
    );
  }

  /**
   * Opens `relative` as a FileHandle for the asynchronous `node:fs` calls. The object is opened by
   * descriptor and then reopened through its `/proc/self/fd` entry, which the kernel resolves to that
   * same object, not by any name. `O_CREAT` and `O_EXCL` apply to the first open only.
   */
  async openHandle(
    relative: string,
    flags: number,
    mode = 0o666,
    links: LinkHandling = 'refuse',
  ): Promise<FileHandle> {
    const fd = this.openDescriptor(relative, flags, mode, links);
    try {
      return await reopenDescriptor(fd, flags);
    } finally {
      closeDescriptor(fd);
    }
  }

  /** `fstat` of the entry at `relative` itself (a link is described, not followed), like `lstat`. */
  statEntry(relative: string, links: LinkHandling = 'refuse'): Stats {
    const fd = this.openDescriptor(relative, O_PATH, 0, links);
    try {
      return fstatSync(fd);
    } finally {
      closeDescriptor(fd);
    }
  }

  /** {@link statEntry}, or undefined when nothing is at `relative` (`ENOENT`); other errors throw. */
  statEntryIfPresent(relative: string, links: LinkHandling = 'refuse'): Stats | undefined {
    try {
      return this.statEntry(relative, links);
    } catch (error) {
      if (errorCodeOf(error) === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** `fstat` of the held directory. */
  stat(): Stats {
    return fstatSync(this.#live());
  }

  /** The entries of the held directory (read through its descriptor's `/proc/self/fd` entry). */
  entries(): Promise<Dirent[]> {
    return readdir(descriptorPath(this.#live()), { withFileTypes: true });
  }

  /** {@link entries}, synchronously (for walks that must not interleave with other work). */
  entriesSync(): Dirent[] {
    return readdirSync(descriptorPath(this.#live()), { withFileTypes: true });
  }

  /** The target of the symlink `name` here, read through the descriptor (never followed). */
  linkTarget(name: string): string {
    assertEntryName(name, this.#shown(name));
    return readlinkSync(`${descriptorPath(this.#live())}/${name}`);
  }

  /** Creates the directory `name` here (never following a link at `name`). */
  createDirectory(name: string, mode = 0o777): void {
    assertEntryName(name, this.#shown(name));
    mkdirat(this.#live(), name, mode, this.#shown(name));
  }

  /** Removes the non-directory `name` here (a link is removed itself). */
  removeFile(name: string): void {
    assertEntryName(name, this.#shown(name));
    unlinkat(this.#live(), name, 0, this.#shown(name));
  }

  /** Removes the empty directory `name` here. */
  removeDirectory(name: string): void {
    assertEntryName(name, this.#shown(name));
    unlinkat(this.#live(), name, AT_REMOVEDIR, this.#shown(name));
  }

  /**
   * Renames `name` here to `toName` in `to` (this directory or another held one). `noReplace` fails with
   * `EEXIST` instead of replacing an existing entry.
   */
  rename(name: string, to: HeldDirectory, toName: string, options: { noReplace?: boolean } = {}): void {
    assertEntryName(name, this.#shown(name));
    assertEntryName(toName, to.#shown(toName));
    renameat2(
      this.#live(),
      name,
      to.#live(),
      toName,
      options.noReplace ? RENAME_NOREPLACE : 0,
      to.#shown(toName),
    );
  }

  /**
   * The path of entry `name` of this directory through the held descriptor (`/proc/self/fd/N/name`):
   * the kernel resolves the descriptor's entry to the held object itself, then looks up the one name.
   * It is how the asynchronous calls below stay on the object while running on `node:fs`'s threads.
   */
  #entryPath(name: string): string {
    assertEntryName(name, this.#shown(name));
    return `${descriptorPath(this.#live())}/${name}`;
  }

  /**
   * Creates the file `name` here (`O_CREAT | O_EXCL`, so a link or anything else at the name fails with
   * `EEXIST`) and opens it for writing, off the event loop: creating a file waits for the journal.
   */
  createFile(name: string, mode = 0o666): Promise<FileHandle> {
    return open(this.#entryPath(name), O_WRONLY_CREATE_EXCLUSIVE, mode);
  }

  /**
   * {@link rename} off the event loop (a rename over a file may wait for its data to be written). With
   * `noReplace` the entry is linked at `toName` (which fails with `EEXIST` if anything is there) and its
   * old name removed, which is what `RENAME_NOREPLACE` does in two steps.
   */
  async renameAsync(name: string, to: HeldDirectory, toName: string, options: { noReplace?: boolean } = {}) {
    const from = this.#entryPath(name);
    const target = to.#entryPath(toName);
    if (!options.noReplace) return rename(from, target);
    await link(from, target);
    // The old name may already be gone (moved away meanwhile): the entry is in place either way.
    await unlink(from).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    });
  }

  /** `fchmod` of the held directory itself. */
  changeMode(mode: number): void {
    fchmodSync(this.#live(), mode);
  }

  /** `fchown` of the held directory itself. */
  changeOwner(uid: number, gid: number): void {
    fchownSync(this.#live(), uid, gid);
  }

  close(): void {
    if (this.#fd < 0) return;
    const fd = this.#fd;
    this.#fd = -1;
    if (this.#owned) closeDescriptor(fd);
  }
}

/** `O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`: a new file, never through a link. */
const O_WRONLY_CREATE_EXCLUSIVE = 0o1 | 0o100 | 0o200 | 0o400000 | 0o2000000;

/** A FileHandle on the object behind `fd`, opened through `/proc/self/fd` (see `openHandle`). */
export function reopenDescriptor(fd: number, flags: number): Promise<FileHandle> {
  const O_CREAT = 0o100;
  const O_EXCL = 0o200;
  const O_TRUNC = 0o1000;
  return open(descriptorPath(fd), flags & ~(O_CREAT | O_EXCL | O_TRUNC));
}

/** Runs `action` with a held directory and closes it afterwards, whatever happens. */
export async function withHeldDirectory<T>(
  directory: HeldDirectory,
  action: (directory: HeldDirectory) => Promise<T> | T,
): Promise<T> {
  try {
    return await action(directory);
  } finally {
    directory.close();
  }
}
