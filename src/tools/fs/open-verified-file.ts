/**
 * Opening a checked path without a check-then-open race. The path is opened first, then the descriptor's
 * own location (`/proc/self/fd/N` on Linux) is resolved and passed through the access policy again; a swap
 * of any component between the check and the open is caught because the policy judges what the descriptor
 * points at, not the string checked earlier. Off Linux the descriptor's location is taken from the path
 * again (see docs/decisions/2026-12-01-tool-access.md for what that guarantees).
 *
 * Every open here is `O_RDONLY | O_NONBLOCK | O_NOCTTY`: opening a FIFO with no writer returns at once
 * instead of blocking a thread that cannot be interrupted, and a terminal never becomes the server's
 * controlling terminal. Callers check `fstat` for a regular file before reading a byte.
 */
import { constants } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
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
 * Opens a resolved path with {@link SAFE_READ_FLAGS} and verifies the descriptor for `need` (write_file
 * and edit_file read the file they will replace). The caller closes `handle`.
 */
export async function openVerifiedForReading(
  resolved: ResolvedPath,
  context: ToolContext,
  need: AccessNeed = 'read',
): Promise<VerifiedHandle> {
  const handle = await open(resolved.absolute, SAFE_READ_FLAGS);
  try {
    return { handle, real: await verifyDescriptor(handle, resolved, context, need) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
