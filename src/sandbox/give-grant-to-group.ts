/**
 * `mango workspace grant … --fix-owner`: gives a granted directory and what it holds to the grant's
 * group, so that every user it is granted to (each carries that group in their sandbox) can use it,
 * and what one user's commands create there stays usable by the others: directories get setgid (new
 * entries inherit the group) and the sandbox's umask 0002 leaves new files group-writable.
 *
 * The tree may be a tenant's, changing while this runs, so it is walked by descriptor with links
 * refused (walk-tree.ts) and every change is made on the object's own descriptor (`fchown`, `fchmod`).
 *
 * Guarantees:
 * - Only the granted directory and what lies below it on its own filesystem change, never a
 *   directory above it; a directory on another filesystem (a mount inside the grant) is not entered.
 * - Owners stay (`fchown` with uid -1); group bits are added, none removed: `rwx` on directories and
 *   `rw` on files for a read-write grant, `r-x` and `r` for a read-only one, `x` on a file only where
 *   its owner has `x`; directories also get setgid.
 * - A regular file with more than one hard link is left as it was and reported: another link may lie
 *   outside the grant, and a change would reach the file there too.
 * - Symlinks are neither followed nor changed; fifos, sockets and devices are left alone.
 * - An entry that vanished or was swapped for a link since the listing is skipped.
 */
import { fchmodSync, fchownSync, fstatSync, openSync, type Stats } from 'node:fs';
import { descriptorPath, HeldDirectory } from '../descriptors/held-directory.ts';
import {
  closeDescriptor,
  O_CLOEXEC,
  O_NOCTTY,
  O_NONBLOCK,
  O_PATH,
  O_RDONLY,
} from '../descriptors/linux-file-calls.ts';
import { walkTree } from '../tools/fs/walk-tree.ts';
import type { GrantAccess } from './grant-reach-problem.ts';

export interface GrantGroupChange {
  /** Directories given the group, the granted one included. */
  directories: number;
  /** Regular files given the group. */
  files: number;
  /** Regular files left as they were for their other hard links, relative to the granted directory. */
  hardLinked: string[];
  /** Directories and files on another filesystem, not changed (nor entered), relative. */
  otherFilesystems: string[];
}

const S_ISGID = 0o2000;
const DIRECTORY_BITS: Record<GrantAccess, number> = { 'read-only': 0o050, 'read-write': 0o070 };
const FILE_BITS: Record<GrantAccess, number> = { 'read-only': 0o040, 'read-write': 0o060 };
/** What the changes below tolerate: the entry is gone, or a link or something else now stands there. */
const SWAPPED = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EXDEV']);

function swapped(error: unknown): boolean {
  return SWAPPED.has(String((error as { code?: unknown }).code));
}

/** The mode a file gets: the grant's group bits, and `x` for the group only where the owner has it. */
function fileMode(mode: number, access: GrantAccess): number {
  return mode | FILE_BITS[access] | (mode & 0o100 ? 0o010 : 0);
}

function giveDirectory(directory: HeldDirectory, group: number, access: GrantAccess): void {
  directory.changeOwner(-1, group);
  // Read after the chown, which may have cleared bits.
  const mode = directory.stat().mode & 0o7777;
  const wanted = mode | DIRECTORY_BITS[access] | S_ISGID;
  if (wanted !== mode) directory.changeMode(wanted);
}

/** Changes an opened regular file; the caller checked its links and filesystem. */
function giveFile(pathDescriptor: number, group: number, access: GrantAccess): void {
  // fchown and fchmod need a descriptor opened for I/O, not O_PATH: the reopen through /proc/self/fd
  // is the same object (and O_NONBLOCK keeps it from waiting, whatever the object turned out to be).
  const fd = openSync(descriptorPath(pathDescriptor), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  try {
    fchownSync(fd, -1, group);
    // The kernel clears setuid (and setgid) on a chown: the mode is read again, never put back.
    const mode = fstatSync(fd).mode & 0o7777;
    const wanted = fileMode(mode, access);
    if (wanted !== mode) fchmodSync(fd, wanted);
  } finally {
    closeDescriptor(fd);
  }
}

/**
 * Gives the directory at the real path `path` and its tree to `group` for a grant of `access`.
 * @throws what the first change that fails throws (an entry that vanished is no failure).
 */
export function giveGrantToGroup(path: string, group: number, access: GrantAccess): GrantGroupChange {
  const change: GrantGroupChange = { directories: 0, files: 0, hardLinked: [], otherFilesystems: [] };
  const root = HeldDirectory.open(path);
  try {
    const device = root.stat().dev;
    giveDirectory(root, group, access);
    change.directories += 1;
    const notEntered = new Set<string>();
    const walk = walkTree(root, { descends: (entry) => !notEntered.has(entry.relative) });
    for (const entry of walk) {
      if (entry.kind === 'directory') {
        let directory: HeldDirectory;
        try {
          directory = entry.directory.openDirectory(entry.name, 'refuse');
        } catch (error) {
          if (!swapped(error)) throw error;
          notEntered.add(entry.relative);
          continue;
        }
        try {
          if (directory.stat().dev !== device) {
            notEntered.add(entry.relative);
            change.otherFilesystems.push(entry.relative);
            continue;
          }
          giveDirectory(directory, group, access);
          change.directories += 1;
        } finally {
          directory.close();
        }
      } else if (entry.kind === 'file') {
        let fd: number;
        try {
          // O_PATH with links refused: a link now at the name is opened itself, and left alone below.
          fd = entry.directory.openDescriptor(entry.name, O_PATH);
        } catch (error) {
          if (!swapped(error)) throw error;
          continue;
        }
        try {
          const stats: Stats = fstatSync(fd);
          if (!stats.isFile()) continue;
          if (stats.dev !== device) change.otherFilesystems.push(entry.relative);
          else if (stats.nlink > 1) change.hardLinked.push(entry.relative);
          else {
            giveFile(fd, group, access);
            change.files += 1;
          }
        } finally {
          closeDescriptor(fd);
        }
      }
    }
    return change;
  } finally {
    root.close();
  }
}
