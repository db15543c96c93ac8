/**
 * Each user's disk lock: `<userId>.lock` in the disks directory, held (`flock`, exclusive) by whoever
 * makes, mounts, moves or resizes that user's image, so servers and `mango` commands on one host never
 * mount an image twice or change one another process is mounting. Within one process the holders of a
 * user's lock queue up first, so the process never waits on a lock it holds itself.
 */
import { acquireFileLock, type FileLock } from '../descriptors/file-lock.ts';
import type { HeldDirectory } from '../descriptors/held-directory.ts';
import { openPrivateDirectory } from '../descriptors/private-directory.ts';

/** How long a user's lock is waited for: a mount or a grow takes well under a second. */
const LOCK_TIMEOUT_MS = 120_000;

export class UserDiskLocks {
  readonly #disksPath: string;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(disksPath: string) {
    this.#disksPath = disksPath;
  }

  /** Runs `action` holding `userId`'s lock, with the disks directory (made 0700 when missing) held. */
  async withLock<T>(userId: string, action: (disks: HeldDirectory) => Promise<T>): Promise<T> {
    const previous = this.#queues.get(userId) ?? Promise.resolve();
    const run = previous
      .catch(() => {})
      .then(async () => {
        const disks = openPrivateDirectory(this.#disksPath);
        let lock: FileLock | undefined;
        try {
          lock = await acquireFileLock(disks, `${userId}.lock`, {
            mode: 'exclusive',
            timeoutMs: LOCK_TIMEOUT_MS,
          });
          return await action(disks);
        } finally {
          lock?.release();
          disks.close();
        }
      });
    this.#queues.set(userId, run);
    try {
      return await run;
    } finally {
      if (this.#queues.get(userId) === run) this.#queues.delete(userId);
    }
  }
}
