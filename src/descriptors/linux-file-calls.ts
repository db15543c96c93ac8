/**
 * The Linux calls that act relative to a held directory descriptor, reached through `bun:ffi` because
 * neither Bun nor Node exposes them: `openat2` (through libc's `syscall`, which glibc does not wrap),
 * `mkdirat`, `unlinkat`, `renameat2` and `fchownat` (Node's `fchown` refuses the `O_PATH` descriptors
 * that hold a symlink or a FIFO as itself), `flock`, which locks an open file, `syncfs`, and `fcntl`'s
 * pipe capacity (the file worker's pipe). Each returns a result
 * or throws a SystemCallError; none follows a name the caller did not hand it.
 *
 * They run on the calling thread: a metadata call on a local directory takes microseconds (an
 * `openat2` and `close` about 2 µs here), less than handing it to a thread pool would. File contents are
 * read and written through `node:fs` on the descriptors these calls return.
 *
 * errno is read from libc's thread-local `errno` right after the failing call returns, before any other
 * code of this thread can run; each thread (a Worker) loads this module and its own errno location.
 */
import { dlopen, FFIType, read } from 'bun:ffi';
import { closeSync } from 'node:fs';
import { errorMessage } from '../errors/error-message.ts';
import { DescriptorCallsUnavailableError, SystemCallError } from './system-call-error.ts';

/** `openat2`'s system call number on the two architectures Linux servers run on. */
const OPENAT2_NUMBER: Partial<Record<string, bigint>> = { x64: 437n, arm64: 437n };

/** `struct open_how`: flags, mode, resolve, each a 64-bit field. */
const OPEN_HOW_SIZE = 24n;

export const AT_FDCWD = -100;
export const AT_REMOVEDIR = 0x200;
export const AT_SYMLINK_NOFOLLOW = 0x100;
export const AT_EMPTY_PATH = 0x1000;

export const RESOLVE_NO_XDEV = 0x01;
export const RESOLVE_NO_MAGICLINKS = 0x02;
export const RESOLVE_NO_SYMLINKS = 0x04;
export const RESOLVE_BENEATH = 0x08;

export const RENAME_NOREPLACE = 0x1;
export const RENAME_EXCHANGE = 0x2;

/** `flock` operations. */
export const LOCK_SH = 1;
export const LOCK_EX = 2;
export const LOCK_NB = 4;
export const LOCK_UN = 8;

/** Open flags (Linux values; `O_PATH` is missing from `fs.constants`). */
export const O_RDONLY = 0;
export const O_WRONLY = 0o1;
export const O_RDWR = 0o2;
export const O_CREAT = 0o100;
export const O_EXCL = 0o200;
export const O_NOCTTY = 0o400;
export const O_TRUNC = 0o1000;
export const O_NONBLOCK = 0o4000;
export const O_DIRECTORY = 0o200000;
export const O_NOFOLLOW = 0o400000;
export const O_CLOEXEC = 0o2000000;
export const O_PATH = 0o10000000;

const symbols = {
  syscall: {
    args: [FFIType.i64, FFIType.i32, FFIType.ptr, FFIType.ptr, FFIType.u64],
    returns: FFIType.i64,
  },
  mkdirat: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
  unlinkat: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  renameat2: {
    args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32],
    returns: FFIType.i32,
  },
  fchownat: {
    args: [FFIType.i32, FFIType.ptr, FFIType.u32, FFIType.u32, FFIType.i32],
    returns: FFIType.i32,
  },
  flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  syncfs: { args: [FFIType.i32], returns: FFIType.i32 },
  fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  __errno_location: { args: [], returns: FFIType.ptr },
} as const;

interface LoadedCalls {
  calls: ReturnType<typeof dlopen<typeof symbols>>['symbols'];
  errnoLocation: NonNullable<
    ReturnType<ReturnType<typeof dlopen<typeof symbols>>['symbols']['__errno_location']>
  >;
  openat2Number: bigint;
}

let loaded: LoadedCalls | DescriptorCallsUnavailableError | undefined;

function load(): LoadedCalls {
  if (loaded === undefined) loaded = tryLoad();
  if (loaded instanceof DescriptorCallsUnavailableError) throw loaded;
  return loaded;
}

function tryLoad(): LoadedCalls | DescriptorCallsUnavailableError {
  if (process.platform !== 'linux') {
    return new DescriptorCallsUnavailableError(`the platform is ${process.platform}`);
  }
  const openat2Number = OPENAT2_NUMBER[process.arch];
  if (openat2Number === undefined) {
    return new DescriptorCallsUnavailableError(`no openat2 number is known for ${process.arch}`);
  }
  let calls: LoadedCalls['calls'];
  try {
    calls = dlopen('libc.so.6', symbols).symbols;
  } catch (error) {
    const reason = errorMessage(error);
    return new DescriptorCallsUnavailableError(`libc.so.6 could not be loaded (${reason})`);
  }
  const errnoLocation = calls.__errno_location();
  if (errnoLocation === null) return new DescriptorCallsUnavailableError('libc gave no errno location');
  return { calls, errnoLocation, openat2Number };
}

/** A NUL-terminated copy of `text` for a C call; a NUL inside it is refused. */
function cString(text: string): Uint8Array {
  if (text.includes('\0')) throw new SystemCallError(22, 'path', text.replaceAll('\0', '\\0'));
  return new TextEncoder().encode(`${text}\0`);
}

function fail(syscall: string, shown: string): never {
  const { errnoLocation } = load();
  throw new SystemCallError(read.i32(errnoLocation, 0), syscall, shown);
}

export interface OpenHow {
  flags: number;
  mode?: number;
  resolve: number;
}

/** `openat2(directory, path, how)`; returns the new descriptor (always close-on-exec). */
export function openat2(directory: number, path: string, how: OpenHow, shown = path): number {
  const { calls, openat2Number } = load();
  const openHow = new BigUint64Array([
    BigInt(how.flags | O_CLOEXEC),
    BigInt(how.flags & O_CREAT ? (how.mode ?? 0o666) : 0),
    BigInt(how.resolve),
  ]);
  const fd = Number(calls.syscall(openat2Number, directory, cString(path), openHow, OPEN_HOW_SIZE));
  if (fd < 0) fail('openat2', shown);
  return fd;
}

export function mkdirat(directory: number, name: string, mode: number, shown = name): void {
  if (load().calls.mkdirat(directory, cString(name), mode) !== 0) fail('mkdirat', shown);
}

export function unlinkat(directory: number, name: string, flags: number, shown = name): void {
  if (load().calls.unlinkat(directory, cString(name), flags) !== 0) fail('unlinkat', shown);
}

export function renameat2(
  fromDirectory: number,
  fromName: string,
  toDirectory: number,
  toName: string,
  flags: number,
  shown = toName,
): void {
  const result = load().calls.renameat2(
    fromDirectory,
    cString(fromName),
    toDirectory,
    cString(toName),
    flags,
  );
  if (result !== 0) fail('renameat2', shown);
}

/**
 * `fchownat(directory, path, uid, gid, flags)`. With `AT_EMPTY_PATH` and an empty `path` it changes the
 * object `directory` holds, whatever kind it is (an `O_PATH` descriptor of a symlink changes the link).
 */
export function fchownat(
  directory: number,
  path: string,
  uid: number,
  gid: number,
  flags: number,
  shown = path,
): void {
  if (load().calls.fchownat(directory, cString(path), uid, gid, flags) !== 0) fail('fchownat', shown);
}

/**
 * `flock(fd, operation)`. With `LOCK_NB` a lock held elsewhere is `false` (EWOULDBLOCK), not an error;
 * without it the call blocks this thread, so callers on the event loop always pass `LOCK_NB`.
 */
export function flock(fd: number, operation: number, shown: string): boolean {
  const { calls, errnoLocation } = load();
  if (calls.flock(fd, operation) === 0) return true;
  const errno = read.i32(errnoLocation, 0);
  // EWOULDBLOCK (EAGAIN, 11 on Linux): someone else holds it.
  if (errno === 11 && operation & LOCK_NB) return false;
  throw new SystemCallError(errno, 'flock', shown);
}

/**
 * `syncfs(fd)`: commits the filesystem holding `fd`. On ext4 that is also what makes the blocks of
 * files removed since the last commit free again, which `statfs` does not count before it.
 */
export function syncfs(fd: number, shown: string): void {
  if (load().calls.syncfs(fd) !== 0) fail('syncfs', shown);
}

/** Closes a descriptor these calls returned; a second close of the same number is the caller's bug. */
/** `fcntl`'s command that sets a pipe's capacity. */
const F_SETPIPE_SZ = 1031;

/**
 * Sets the capacity of the pipe `fd` to at least `bytes` (`fcntl(F_SETPIPE_SZ)`; the kernel rounds up
 * to a power of two of pages and refuses more than `/proc/sys/fs/pipe-max-size` unprivileged); returns
 * the capacity it has now.
 */
export function setPipeCapacity(fd: number, bytes: number, shown: string): number {
  const { calls } = load();
  const capacity = calls.fcntl(fd, F_SETPIPE_SZ, bytes);
  if (capacity === -1) fail('fcntl', shown);
  return capacity;
}

export function closeDescriptor(fd: number): void {
  // node:fs's close is the plain close(2) on the number.
  closeSync(fd);
}
