/**
 * One entry of a held directory, held as itself: opened by its one name with `O_PATH | O_NOFOLLOW`,
 * beneath the directory and with links refused, so a symlink is held as the link (never its target)
 * and a FIFO or a device is never opened for reading or writing. What is read about it (`fstat`) and
 * what is changed (owner, mode) is then one object, whatever is renamed over its name meanwhile: a
 * root process deciding about an entry of a tree a tenant can change acts on exactly what it decided
 * about.
 *
 * - The owner changes with `fchownat(fd, "", AT_EMPTY_PATH)`, which acts on the held object of any
 *   kind (Node's `fchown` refuses `O_PATH` descriptors), a symlink included: the link changes, its
 *   target never does.
 * - The mode changes through `/proc/self/fd/N`, which the kernel resolves to the held object itself
 *   (`fchmod` refuses `O_PATH` descriptors too, and `fchmodat2` with `AT_EMPTY_PATH` needs Linux 6.6);
 *   a symlink has no mode of its own on Linux, so changing one is refused.
 *
 * The holder closes it (`close()`).
 */
import { chmodSync, fstatSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { assertEntryName, descriptorPath, type HeldDirectory } from './held-directory.ts';
import { AT_EMPTY_PATH, closeDescriptor, fchownat, O_PATH } from './linux-file-calls.ts';
import { SystemCallError } from './system-call-error.ts';

/** errno `EOPNOTSUPP` (`ENOTSUP` on Linux): what the kernel answers a mode change of a symlink. */
const EOPNOTSUPP = 95;

export class HeldEntry {
  #fd: number;

  private constructor(
    fd: number,
    /** Where the entry was when it was opened: for messages, never resolved again. */
    readonly path: string,
  ) {
    this.#fd = fd;
  }

  /**
   * Holds the entry `name` of `directory`. A name that is gone fails with `ENOENT`; a symlink is held
   * as the link.
   */
  static open(directory: HeldDirectory, name: string): HeldEntry {
    const shown = join(directory.path, name);
    assertEntryName(name, shown);
    // openDescriptor adds O_NOFOLLOW and RESOLVE_NO_SYMLINKS; with O_PATH a final link is held, not refused.
    return new HeldEntry(directory.openDescriptor(name, O_PATH), shown);
  }

  /** The descriptor; -1 once closed. */
  get fd(): number {
    return this.#fd;
  }

  #live(): number {
    if (this.#fd < 0) throw new SystemCallError(9, 'held entry (closed)', this.path);
    return this.#fd;
  }

  /** `fstat` of the held object (a link is described, not followed). */
  stat(): Stats {
    return fstatSync(this.#live());
  }

  /** Gives the held object to `uid`:`gid` (a symlink itself, never its target). */
  changeOwner(uid: number, gid: number): void {
    fchownat(this.#live(), '', uid, gid, AT_EMPTY_PATH, this.path);
  }

  /** Sets the held object's mode (permission and setuid, setgid, sticky bits); refused for a symlink. */
  changeMode(mode: number): void {
    const fd = this.#live();
    if (fstatSync(fd).isSymbolicLink()) throw new SystemCallError(EOPNOTSUPP, 'chmod (symlink)', this.path);
    try {
      chmodSync(descriptorPath(fd), mode);
    } catch (error) {
      const errno = (error as { errno?: unknown }).errno;
      if (typeof errno !== 'number') throw error;
      // Node's errno is negative; the message names the entry, not the /proc path.
      throw new SystemCallError(Math.abs(errno), 'chmod', this.path);
    }
  }

  close(): void {
    if (this.#fd < 0) return;
    const fd = this.#fd;
    this.#fd = -1;
    closeDescriptor(fd);
  }
}
