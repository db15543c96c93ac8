/**
 * An advisory lock on a file in a held directory (`flock`), shared or exclusive, held until released or
 * until this process ends (the kernel drops it with the descriptor, so a crash never leaves it behind).
 * It is how processes on one host that share a data directory (servers, `mango` commands) take turns at
 * something no file system call makes atomic, such as checking that an image is not mounted and then
 * mounting it. Within one process each acquisition opens the file anew, so two of them exclude each
 * other too.
 *
 * Waiting never blocks the event loop: the lock is tried without blocking and tried again a little
 * later until `timeoutMs` has passed.
 */
import { MangoError } from '../errors/mango-error.ts';
import type { HeldDirectory } from './held-directory.ts';
import {
  closeDescriptor,
  flock,
  LOCK_EX,
  LOCK_NB,
  LOCK_SH,
  O_CREAT,
  O_NOCTTY,
  O_RDWR,
} from './linux-file-calls.ts';

export interface FileLock {
  /** Drops the lock (idempotent). */
  release(): void;
}

export interface FileLockOptions {
  /** `shared` locks coexist with each other; an `exclusive` one excludes every other lock. */
  mode: 'shared' | 'exclusive';
  /** How long to wait for a lock held elsewhere; 0 = do not wait. */
  timeoutMs: number;
}

/** Thrown when the lock stayed held elsewhere for the whole wait. */
export class FileLockBusyError extends MangoError {
  constructor(readonly path: string) {
    super('lock_busy', `Another process holds the lock ${path}.`);
    this.name = 'FileLockBusyError';
  }
}

/** Polling interval while another process holds the lock. */
const RETRY_MILLISECONDS = 20;

/**
 * Locks the file `name` in `directory` (created 0600 when missing, never through a link).
 * @throws FileLockBusyError when it stayed held elsewhere for `timeoutMs`.
 */
export async function acquireFileLock(
  directory: HeldDirectory,
  name: string,
  options: FileLockOptions,
): Promise<FileLock> {
  const shown = `${directory.path}/${name}`;
  const fd = directory.openDescriptor(name, O_RDWR | O_CREAT | O_NOCTTY, 0o600);
  const operation = (options.mode === 'shared' ? LOCK_SH : LOCK_EX) | LOCK_NB;
  const deadline = Date.now() + options.timeoutMs;
  try {
    while (!flock(fd, operation, shown)) {
      if (Date.now() >= deadline) throw new FileLockBusyError(shown);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MILLISECONDS));
    }
  } catch (error) {
    closeDescriptor(fd);
    throw error;
  }
  let held = true;
  return {
    release: () => {
      if (!held) return;
      held = false;
      // Closing the only descriptor of this open file drops the lock.
      closeDescriptor(fd);
    },
  };
}
