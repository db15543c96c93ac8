/**
 * Directories and files that belong to the server's own uid alone: the data directory and what the
 * server keeps in it. A directory is created with mode 0700 and a file with 0600, and one found with any
 * other mode (made by an older version, or under another umask) is set to it through its own
 * descriptor, never by name. Below a held directory, a link where an entry should be is refused.
 */
import { chmodSync, fchmodSync, fstatSync, mkdirSync, realpathSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { descriptorPath, HeldDirectory } from './held-directory.ts';
import { closeDescriptor, O_CREAT, O_EXCL, O_NOCTTY, O_PATH, O_WRONLY } from './linux-file-calls.ts';
import { SystemCallError } from './system-call-error.ts';

/** Only the owner may list, enter and change the directory. */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** Only the owner may read and write the file. */
export const PRIVATE_FILE_MODE = 0o600;

function permissionBits(stats: Stats): number {
  return stats.mode & 0o7777;
}

function isExisting(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'EEXIST';
}

/** Sets the held directory's mode to 0700 unless it has exactly that mode already. */
function narrowHeld(directory: HeldDirectory): HeldDirectory {
  try {
    if (permissionBits(directory.stat()) !== PRIVATE_DIRECTORY_MODE)
      directory.changeMode(PRIVATE_DIRECTORY_MODE);
    return directory;
  } catch (error) {
    directory.close();
    throw error;
  }
}

/**
 * Opens the directory at `path` (relative paths against the working directory), creating it when
 * missing, and gives it mode 0700. Missing parents are made with the default mode: they may hold
 * directories that others must pass through (the workspaces directory next to the data directory).
 * `path` itself may be a link the operator set up; it is resolved once and the result opened without
 * links. The caller closes the returned directory.
 */
export function openPrivateDirectory(path: string): HeldDirectory {
  const absolute = resolve(path);
  const name = basename(absolute);
  const parentPath = dirname(absolute);
  mkdirSync(parentPath, { recursive: true });
  const parent = HeldDirectory.open(realpathSync(parentPath));
  try {
    parent.createDirectory(name, PRIVATE_DIRECTORY_MODE);
  } catch (error) {
    if (!isExisting(error)) throw error;
  } finally {
    parent.close();
  }
  return narrowHeld(HeldDirectory.open(realpathSync(absolute)));
}

/**
 * The directory `name` in `parent`, created when missing, with mode 0700. A link at `name` fails with
 * `ELOOP`, a file with `ENOTDIR`. The caller closes the returned directory.
 */
export function openPrivateDirectoryIn(parent: HeldDirectory, name: string): HeldDirectory {
  try {
    parent.createDirectory(name, PRIVATE_DIRECTORY_MODE);
  } catch (error) {
    if (!isExisting(error)) throw error;
  }
  return narrowHeld(parent.openDirectory(name));
}

/**
 * Gives the regular file `name` in `parent` mode 0600, creating it empty (0600) when `create` is set and
 * it is missing. Returns false when it is missing and not to be created. Anything but a regular file at
 * `name`, a link included, fails with `EINVAL`.
 *
 * An existing file is looked at through an `O_PATH` descriptor and its mode set through that
 * descriptor's `/proc/self/fd` entry, which the kernel resolves to the same object. Closing a descriptor
 * that was opened for reading or writing drops every POSIX lock this process holds on the file, and
 * SQLite holds such locks on its files (its connections in this process, or its WAL index); closing an
 * `O_PATH` descriptor drops none.
 */
export function makeFilePrivate(parent: HeldDirectory, name: string, options: { create: boolean }): boolean {
  if (options.create) createPrivateFile(parent, name);
  let fd: number;
  try {
    fd = parent.openDescriptor(name, O_PATH);
  } catch (error) {
    if (!options.create && (error as { code?: unknown }).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw new SystemCallError(22, 'private file (not a regular file)', join(parent.path, name));
    }
    if (permissionBits(stats) !== PRIVATE_FILE_MODE) chmodSync(descriptorPath(fd), PRIVATE_FILE_MODE);
    return true;
  } finally {
    closeDescriptor(fd);
  }
}

/**
 * Creates the empty file `name` in `parent` with mode 0600 unless something is there already. The new
 * file is nobody else's yet, so the descriptor that made it holds no lock its close could drop.
 */
function createPrivateFile(parent: HeldDirectory, name: string): void {
  let fd: number;
  try {
    fd = parent.openDescriptor(name, O_WRONLY | O_CREAT | O_EXCL | O_NOCTTY, PRIVATE_FILE_MODE);
  } catch (error) {
    if (isExisting(error)) return;
    throw error;
  }
  try {
    // The umask may have narrowed the mode it was created with.
    fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    closeDescriptor(fd);
  }
}
