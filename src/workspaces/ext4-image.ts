/**
 * The ext4 image a personal workspace with a disk quota lives on: a sparse file in the data directory,
 * made, checked, grown, shrunk and given its reserve with e2fsprogs. The image is the quota's size;
 * where it is larger (a quota lowered while the image was in use, a workspace moved onto it with more
 * than its quota), the excess is reserved for root, so the user's own commands cannot allocate past
 * the quota while they can still remove files, and it is shrunk the next time it is mounted if what it
 * holds fits. e2fsprogs reserves at most half an image: below that the server's own check
 * (tools/fs/workspace-room.ts) holds the quota for its writes until the image can shrink.
 *
 * How images are made, and why:
 * - `-m 0`: no blocks reserved for root; the reserve is only ever what the quota leaves out.
 * - A journal (mkfs's size for the image, at most 32 MiB), so a server killed mid-write leaves an image
 *   that mounts after a journal replay instead of one that needs a full check.
 * - `lazy_itable_init` and `lazy_journal_init`: a 5 GiB image takes about 3 MiB of the host's disk
 *   when made, and grows with what is written (mounted with `discard`, it shrinks again when files are
 *   removed).
 * - The root directory is given to the user at once (`root_owner`).
 *
 * Offline operations (`readExt4Superblock`, `growExt4Image`, `checkExt4Image`) are only for an image
 * attached to no loop device: the caller checks (mount-table.ts).
 */
import { closeSync, ftruncateSync, openSync, readSync } from 'node:fs';
import { runSystemProgram } from './system-program.ts';

/** The fields of an ext4 superblock the quota needs. */
export interface Ext4Superblock {
  blockSize: number;
  blockCount: number;
  reservedBlocks: number;
  freeBlocks: number;
}

const SUPERBLOCK_OFFSET = 1024;
const EXT4_MAGIC = 0xef53;
const INCOMPAT_64BIT = 0x80;
/** Above this, mkfs.ext4 would give the image a journal larger than 32 MiB. */
const LARGE_JOURNAL_FROM_BYTES = 2 * 1024 ** 3;

/**
 * Reads the superblock of the unattached image at `path` (its counts are current only when no kernel
 * has it mounted). @throws Error when it is not ext4.
 */
export function readExt4Superblock(path: string): Ext4Superblock {
  const bytes = Buffer.alloc(1024);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, bytes, 0, bytes.length, SUPERBLOCK_OFFSET);
  } finally {
    closeSync(fd);
  }
  if (bytes.readUInt16LE(0x38) !== EXT4_MAGIC) throw new Error(`${path} holds no ext4 filesystem.`);
  const wide = (bytes.readUInt32LE(0x60) & INCOMPAT_64BIT) !== 0;
  const count = (low: number, high: number) =>
    bytes.readUInt32LE(low) + (wide ? bytes.readUInt32LE(high) * 2 ** 32 : 0);
  return {
    blockSize: 1024 * 2 ** bytes.readUInt32LE(0x18),
    blockCount: count(0x04, 0x150),
    reservedBlocks: count(0x08, 0x154),
    freeBlocks: count(0x0c, 0x158),
  };
}

/** Bytes of the filesystem in the superblock. */
export function filesystemBytes(superblock: Ext4Superblock): number {
  return superblock.blockCount * superblock.blockSize;
}

/** Bytes in use (the filesystem's own structures included) per the superblock. */
export function usedBytes(superblock: Ext4Superblock): number {
  return (superblock.blockCount - superblock.freeBlocks) * superblock.blockSize;
}

export interface MakeImageOptions {
  /** Who the root directory belongs to. */
  owner?: { uid: number; gid: number } | undefined;
  /** Inodes to make room for (a move counts the files it copies); default: mkfs's own ratio. */
  inodes?: number;
}

/**
 * Makes an ext4 filesystem in the file at `path`, which the caller created (0600, sparse) and sized to
 * `bytes`.
 */
export async function makeExt4Image(
  path: string,
  bytes: number,
  options: MakeImageOptions = {},
): Promise<void> {
  const extended = ['lazy_itable_init=1', 'lazy_journal_init=1', 'nodiscard'];
  if (options.owner !== undefined) extended.push(`root_owner=${options.owner.uid}:${options.owner.gid}`);
  await runSystemProgram('mkfs.ext4', [
    '-q',
    '-F',
    '-m',
    '0',
    '-E',
    extended.join(','),
    ...(bytes >= LARGE_JOURNAL_FROM_BYTES ? ['-J', 'size=32'] : []),
    ...(options.inodes === undefined ? [] : ['-N', String(options.inodes)]),
    path,
  ]);
}

/** Sets the file's length to `bytes` (a sparse extension; never shortens). */
export function extendImageFile(path: string, bytes: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/**
 * `e2fsck -p` (replays the journal, fixes what is safe to fix). @throws SystemProgramError when it
 * found what it may not fix alone.
 */
export async function checkExt4Image(path: string, options: { force?: boolean } = {}): Promise<void> {
  // 1: errors were corrected; 2: the same, and a mounted root should reboot (never ours).
  await runSystemProgram('e2fsck', ['-p', ...(options.force ? ['-f'] : []), path], {
    acceptedExitCodes: [1, 2],
  });
}

/** Grows the unattached image to `bytes`: the file, then the filesystem. */
export async function growExt4Image(path: string, bytes: number): Promise<void> {
  extendImageFile(path, bytes);
  // resize2fs wants a freshly checked filesystem before it changes one offline.
  await checkExt4Image(path, { force: true });
  await runSystemProgram('resize2fs', [path, `${bytes / 1024}K`]);
}

/**
 * Grows the filesystem mounted from `device` (its loop device) to `bytes` while it is mounted: the
 * file, the loop device's size, then `resize2fs` online (which the kernel allows only with
 * CAP_SYS_RESOURCE). @throws SystemProgramError when refused.
 */
export async function growMountedExt4Image(path: string, device: string, bytes: number): Promise<void> {
  extendImageFile(path, bytes);
  await runSystemProgram('losetup', ['--set-capacity', device]);
  await runSystemProgram('resize2fs', [device, `${bytes / 1024}K`]);
}

/**
 * The most blocks e2fsprogs lets a filesystem reserve: half of them (it reports more as a corrupt
 * superblock), so a reserve holds a quota down to half the image's size, not below.
 */
export function reservableBlocks(superblock: Pick<Ext4Superblock, 'blockCount'>): number {
  return Math.floor(superblock.blockCount / 2);
}

/**
 * Shrinks the unattached image to `bytes`: the filesystem (resize2fs moves what lies beyond), then the
 * file. @throws SystemProgramError when what it holds does not fit, leaving it as it was.
 */
export async function shrinkExt4Image(path: string, bytes: number): Promise<void> {
  await checkExt4Image(path, { force: true });
  await runSystemProgram('resize2fs', [path, `${bytes / 1024}K`]);
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

/** Room a shrink leaves above what the image holds, so the user is not at the limit at once. */
const SHRINK_HEADROOM = 0.05;

/**
 * Makes the unattached image hold `quota` (see the module comment): grown when smaller; shrunk when
 * larger and what it holds fits in the quota; else (a workspace over its quota) the excess reserved,
 * at most half the image.
 */
export async function fitExt4ImageToQuota(path: string, quota: number): Promise<void> {
  let superblock = readExt4Superblock(path);
  const size = filesystemBytes(superblock);
  if (size < quota) {
    await growExt4Image(path, quota);
    superblock = readExt4Superblock(path);
  } else if (size > quota && usedBytes(superblock) * (1 + SHRINK_HEADROOM) <= quota) {
    try {
      await shrinkExt4Image(path, quota);
    } catch {
      // resize2fs found it does not fit after all (it needs room of its own): the reserve holds it.
    }
    superblock = readExt4Superblock(path);
  }
  const excess = Math.max(0, filesystemBytes(superblock) - quota) / superblock.blockSize;
  const reserve = Math.min(excess, reservableBlocks(superblock));
  if (superblock.reservedBlocks !== reserve) await setReservedBlocks(path, reserve);
}

/**
 * Sets the blocks reserved for root on `target`: the loop device of a mounted image (the kernel
 * reads the count from that device's superblock), or the unattached image file itself.
 */
export async function setReservedBlocks(target: string, blocks: number): Promise<void> {
  await runSystemProgram('tune2fs', ['-r', String(blocks), target]);
}
