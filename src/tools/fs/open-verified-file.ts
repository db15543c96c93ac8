/**
 * Opening a checked path without a check-then-open race (issue 3, "Paths": "verify the file you actually
 * opened"). The path is opened first, then the descriptor's own location (`/proc/self/fd/N` on Linux) is
 * resolved and passed through the policy again; a swap of any component between the check and the open
 * is caught because the policy judges what the descriptor points at, not the string checked earlier.
 */
import { constants, realpathSync } from 'node:fs';
import { type FileHandle, open, realpath } from 'node:fs/promises';
import { ToolPermissionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { getPathPolicy, type ResolvedPath } from './resolve-and-validate-path.ts';

const procSelfFd = (() => {
  try {
    realpathSync('/proc/self/fd/0');
    return true;
  } catch {
    return false;
  }
})();

/** Where an open descriptor really points (falls back to the path's realpath off Linux). */
export async function realPathOfDescriptor(handle: FileHandle, fallbackPath: string): Promise<string> {
  if (procSelfFd) return realpath(`/proc/self/fd/${handle.fd}`);
  return realpath(fallbackPath);
}

/** Throws ToolPermissionError when the location the descriptor points at is refused by policy. */
export async function verifyDescriptor(
  handle: FileHandle,
  resolved: ResolvedPath,
  context: ToolContext,
): Promise<string> {
  const actual = await realPathOfDescriptor(handle, resolved.absolute);
  const refusal = (await getPathPolicy(context)).refusalFor(actual, actual, resolved.input);
  if (refusal !== undefined) throw new ToolPermissionError(refusal);
  return actual;
}

export interface VerifiedHandle {
  handle: FileHandle;
  /** Real location of the opened descriptor. */
  real: string;
}

/**
 * Opens a resolved path read-only (non-blocking, so a FIFO cannot hang the call) and verifies the
 * descriptor. The caller closes `handle`.
 */
export async function openVerifiedForReading(
  resolved: ResolvedPath,
  context: ToolContext,
): Promise<VerifiedHandle> {
  const handle = await open(resolved.absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    return { handle, real: await verifyDescriptor(handle, resolved, context) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
