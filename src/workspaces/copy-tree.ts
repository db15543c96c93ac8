/**
 * Copies a tenant's directory tree into another held directory by descriptor, for moving a workspace
 * onto its disk image. The tree belongs to a user who may have planted anything in it, so:
 *
 * - every directory is entered by its one name below the held one with links refused, every file
 *   opened with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in never blocks the copy) and checked to be
 *   the regular file the listing described; nothing is ever reached through a symbolic link;
 * - a symbolic link is copied as a link (its target text, never what it points at);
 * - owners, modes (set-id bits included, after the owner: a chown clears them), and modification times
 *   are kept; a file with several hard links in the tree is linked again, not copied twice;
 * - the copy stays on the tree's filesystem (a mount inside the workspace is skipped and named), and
 *   FIFOs, sockets and devices are skipped and named (the image is mounted `nodev`, and a socket means
 *   nothing once its process is gone); extended attributes and ACLs are not copied;
 * - it can be run again over a partial copy: what is already there with the same size, time, mode and
 *   owner is kept, anything else is replaced.
 *
 * Holes in sparse files are copied as data. ENOSPC from the target is thrown as it is, so the caller can
 * grow the target and run the copy again.
 */
import {
  closeSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  futimesSync,
  lchownSync,
  linkSync,
  lutimesSync,
  readSync,
  type Stats,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { descriptorPath, type HeldDirectory } from '../descriptors/held-directory.ts';
import { O_CREAT, O_EXCL, O_NONBLOCK, O_RDONLY, O_WRONLY } from '../descriptors/linux-file-calls.ts';

export interface CopyReport {
  directories: number;
  files: number;
  symlinks: number;
  /** Files linked to a copy made earlier in the same tree. */
  hardLinks: number;
  /** Entries left out, relative to the tree's root, each with why. */
  skipped: string[];
}

export interface TreeSize {
  /** Bytes the copy will take: each file's data (its length or its blocks, the larger), rounded to 4 KiB. */
  bytes: number;
  /** Entries (directories, files, links) the copy will make. */
  entries: number;
}

const BUFFER_BYTES = 1024 * 1024;
const BLOCK = 4096;

function roundUp(bytes: number): number {
  return Math.ceil(bytes / BLOCK) * BLOCK;
}

/** The entries of `directory` that the copy will visit, with their `lstat`-like stats. */
function listing(directory: HeldDirectory): { name: string; stats: Stats }[] {
  return directory
    .entriesSync()
    .map((entry) => ({ name: entry.name, stats: directory.statEntry(entry.name) }))
    .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

/** How much a copy of the tree in `root` will take (the same walk as {@link copyTree}). */
export function measureTree(root: HeldDirectory): TreeSize {
  const device = root.stat().dev;
  const seen = new Set<string>();
  const size: TreeSize = { bytes: BLOCK, entries: 1 };
  const walk = (directory: HeldDirectory) => {
    for (const { name, stats } of listing(directory)) {
      if (stats.dev !== device) continue;
      if (stats.isDirectory()) {
        size.bytes += BLOCK;
        size.entries += 1;
        const child = directory.openDirectory(name);
        try {
          walk(child);
        } finally {
          child.close();
        }
      } else if (stats.isSymbolicLink()) {
        size.bytes += BLOCK;
        size.entries += 1;
      } else if (stats.isFile()) {
        const key = `${stats.dev}:${stats.ino}`;
        if (stats.nlink > 1 && seen.has(key)) continue;
        seen.add(key);
        size.bytes += roundUp(Math.max(stats.size, stats.blocks * 512));
        size.entries += 1;
      }
    }
  };
  walk(root);
  return size;
}

/** Same owner, mode and modification time (to the millisecond the copy sets). */
function sameMetadata(left: Stats, right: Stats): boolean {
  return (
    left.uid === right.uid &&
    left.gid === right.gid &&
    (left.mode & 0o7777) === (right.mode & 0o7777) &&
    Math.trunc(left.mtimeMs) === Math.trunc(right.mtimeMs)
  );
}

/** Owner first (a chown clears set-id bits), then the mode, then the times, all on `fd`. */
function applyMetadata(fd: number, stats: Stats): void {
  fchownSync(fd, stats.uid, stats.gid);
  fchmodSync(fd, stats.mode & 0o7777);
  futimesSync(fd, stats.atime, stats.mtime);
}

/**
 * Copies the tree in `source` into `target` (both held; the caller applies the root's own metadata
 * with {@link copyRootMetadata}). Removes nothing from `source`.
 */
export function copyTree(source: HeldDirectory, target: HeldDirectory): CopyReport {
  const report: CopyReport = { directories: 0, files: 0, symlinks: 0, hardLinks: 0, skipped: [] };
  const device = source.stat().dev;
  const rootFd = target.fd;
  /** The first copy of each multiply-linked file: the target-relative path to link again. */
  const linked = new Map<string, string>();

  const walk = (from: HeldDirectory, to: HeldDirectory, relative: string) => {
    for (const { name, stats } of listing(from)) {
      const shown = join(relative, name);
      if (stats.dev !== device) {
        report.skipped.push(`${shown} (another filesystem is mounted there)`);
        continue;
      }
      const present = to.statEntryIfPresent(name);
      if (stats.isDirectory()) {
        if (present !== undefined && !present.isDirectory()) to.removeFile(name);
        if (present === undefined || !present.isDirectory()) to.createDirectory(name, 0o700);
        const fromChild = from.openDirectory(name);
        const toChild = to.openDirectory(name);
        try {
          walk(fromChild, toChild, shown);
          applyMetadata(toChild.fd, stats);
        } finally {
          fromChild.close();
          toChild.close();
        }
        report.directories += 1;
      } else if (present?.isDirectory()) {
        // A directory where the source now has a file or link: left from an earlier run, not ours.
        report.skipped.push(`${shown} (a directory is in the way in the copy)`);
      } else if (stats.isSymbolicLink()) {
        const pointsAt = from.linkTarget(name);
        if (present !== undefined) to.removeFile(name);
        const at = `${descriptorPath(to.fd)}/${name}`;
        symlinkSync(pointsAt, at);
        lchownSync(at, stats.uid, stats.gid);
        lutimesSync(at, stats.atime, stats.mtime);
        report.symlinks += 1;
      } else if (stats.isFile()) {
        const key = `${stats.dev}:${stats.ino}`;
        const first = stats.nlink > 1 ? linked.get(key) : undefined;
        if (first !== undefined) {
          if (present !== undefined) to.removeFile(name);
          linkSync(`${descriptorPath(rootFd)}/${first}`, `${descriptorPath(to.fd)}/${name}`);
          report.hardLinks += 1;
          continue;
        }
        if (stats.nlink > 1) linked.set(key, shown);
        if (present?.isFile() && present.size === stats.size && sameMetadata(present, stats)) {
          report.files += 1;
          continue;
        }
        if (present !== undefined) to.removeFile(name);
        copyFile(from, to, name, stats, shown);
        report.files += 1;
      } else {
        report.skipped.push(`${shown} (a FIFO, socket or device)`);
      }
    }
  };
  walk(source, target, '');
  return report;
}

/** One regular file's bytes and metadata, opened by descriptor on both sides. */
function copyFile(from: HeldDirectory, to: HeldDirectory, name: string, stats: Stats, shown: string): void {
  const input = from.openDescriptor(name, O_RDONLY | O_NONBLOCK);
  try {
    const opened = fstatSync(input);
    if (!opened.isFile() || opened.ino !== stats.ino) {
      throw new Error(
        `${shown} changed while the workspace was being copied; stop whatever changes it and run the move again.`,
      );
    }
    const output = to.openDescriptor(name, O_WRONLY | O_CREAT | O_EXCL, 0o600);
    try {
      const buffer = Buffer.allocUnsafe(BUFFER_BYTES);
      for (;;) {
        const read = readSync(input, buffer, 0, buffer.length, null);
        if (read === 0) break;
        let written = 0;
        while (written < read) written += writeSync(output, buffer, written, read - written);
      }
      applyMetadata(output, stats);
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}

/** Gives the copy's root the owner, mode and times of the source's. */
export function copyRootMetadata(source: HeldDirectory, target: HeldDirectory): void {
  applyMetadata(target.fd, source.stat());
}
