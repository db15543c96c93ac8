/**
 * Opening a checked path without a check-then-open race. The access policy decided a real path (every
 * symlink resolved); that path is opened with links refused on every component (`openat2` with
 * `RESOLVE_NO_SYMLINKS`, see src/descriptors/held-directory.ts), so the object opened is the one at the
 * checked location. A component swapped for a symlink between the check and the open fails the open with
 * `ELOOP` instead of reaching wherever the link points. `verifyDescriptor` and `realPathOfDescriptor`
 * remain for descriptors opened by name elsewhere: they judge what such a descriptor points at.
 *
 * Every open here is `O_RDONLY | O_NONBLOCK | O_NOCTTY`: opening a FIFO with no writer returns at once
 * instead of blocking a thread that cannot be interrupted, and a terminal never becomes the server's
 * controlling terminal. Callers check `fstat` for a regular file before reading a byte.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, readlink, realpath } from 'node:fs/promises';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { SystemCallError } from '../../descriptors/system-call-error.ts';
import { type AccessNeed, getAccessPolicy } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import { ToolExecutionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';

/** The flags of every open on a tool's request path (see the module comment). */
export const SAFE_READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Linux names every open descriptor's location under `/proc/self/fd`; elsewhere only the path is left. */
export const VERIFIES_DESCRIPTORS = process.platform === 'linux';

/**
 * Where an open descriptor (a FileHandle or a held directory) really points. On Linux a `/proc/self/fd` that cannot be read fails the call
 * (the check cannot run, so nothing is read); elsewhere the path is resolved again.
 */
export async function realPathOfDescriptor(handle: { fd: number }, fallbackPath: string): Promise<string> {
  if (!VERIFIES_DESCRIPTORS) return realpath(fallbackPath);
  try {
    // The link's target is the kernel's own name for the open file, every symlink already resolved.
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ToolExecutionError(
      `Cannot verify the file that was opened: /proc/self/fd is not readable (${String(code)}), and without it no tool reads or writes. Mount /proc for the server.`,
    );
  }
}

/** Throws ToolPermissionError when the location the descriptor points at is refused for `need`. */
export async function verifyDescriptor(
  handle: FileHandle,
  resolved: ResolvedPath,
  context: ToolContext,
  need: AccessNeed = 'read',
): Promise<string> {
  const actual = await realPathOfDescriptor(handle, resolved.absolute);
  (await getAccessPolicy(context)).require(actual, need, resolved.input, actual);
  return actual;
}

export interface VerifiedHandle {
  handle: FileHandle;
  /** Real location of the opened descriptor. */
  real: string;
}

/**
 * Opens a resolved path's real location with {@link SAFE_READ_FLAGS} and links refused, after the policy
 * allows it for `need` (write_file and edit_file read the file they will replace). The caller closes
 * `handle`.
 */
export async function openVerifiedForReading(
  resolved: ResolvedPath,
  context: ToolContext,
  need: AccessNeed = 'read',
): Promise<VerifiedHandle> {
  (await getAccessPolicy(context)).require(resolved.real, need, resolved.input, resolved.absolute);
  const handle = await HeldDirectory.openPathHandle(resolved.real, SAFE_READ_FLAGS);
  return { handle, real: resolved.real };
}

/** ELOOP's errno on Linux: a link where the checked real path had none. */
const ELOOP = 40;

/**
 * `fstat` of a resolved path's real location, opened with links refused: a link anywhere on it, the last
 * component included, was swapped in since the check and fails with `ELOOP` (a SystemCallError).
 */
export function statVerified(resolved: ResolvedPath): Stats {
  const stats = HeldDirectory.statPath(resolved.real);
  if (stats.isSymbolicLink()) throw new SystemCallError(ELOOP, 'stat', resolved.real);
  return stats;
}
