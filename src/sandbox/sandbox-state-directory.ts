/**
 * The few host files every sandbox mounts: the synthesized `/etc/passwd` and `/etc/group` (root, the
 * sandbox user, nobody: nothing about the host's accounts), the waiter's script (sandbox-waiter.pl:
 * placed here rather than mounted from the installation directory, which the sandbox uid may not be
 * able to pass) and the empty, mode-000 file and directory that cover protected and denied paths.
 *
 * They live in one directory per sandbox owner's kind of identity (`<tmpdir>/mango-sandbox-<uid>-<gid>`
 * when every call runs as one uid, `<tmpdir>/mango-sandbox-range-<base>` for a uid per user), shared by
 * every sandbox and every process of this server user, so nothing is left behind per process, whatever
 * way a process ends (a `kill -9` runs no exit handler). The accounts' files of each identity sit side
 * by side in it, named after their content (`accounts`).
 *
 * Guarantees:
 * - The directory is used only when it is a real directory (not a symlink) owned by this process's
 *   user and writable by nobody else; otherwise creation fails with the reason (another local user
 *   could have planted it in the shared temp directory).
 * - A file, once in place, is never replaced, rewritten or removed: sandboxes of every process bind it
 *   while it stays put. (Rewriting on open and renaming over the old file made a concurrent sandbox
 *   fail: its bind mount either found no source or landed on the replaced, deleted inode.) The
 *   accounts' file names carry a hash of their content, so a server that synthesizes other text gets
 *   other files instead of replacing these. A new file is written under a temporary name and linked
 *   into place, so nobody sees half a file and a concurrent creator's link simply loses. The waiter's
 *   file is named after its content likewise.
 * - `ensure()` recreates whatever a temp-directory cleaner removed, before each command.
 * - Readable (and traversable) by the sandbox user, since bubblewrap opens mount sources as that user;
 *   never writable by it.
 * - Every step acts by descriptor (descriptors/held-directory.ts), never by name: the temp directory is
 *   opened with links refused on every component, the state directory below it likewise (a planted
 *   link fails instead of being followed), its mode is set with `fchmod` on the directory itself, a new
 *   file is created with `O_CREAT | O_EXCL` and moved into place with `renameat2(RENAME_NOREPLACE)`.
 */
import { createHash } from 'node:crypto';
import { fchmodSync, realpathSync, type Stats, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldDirectory } from '../descriptors/held-directory.ts';
import {
  closeDescriptor,
  O_CREAT,
  O_DIRECTORY,
  O_EXCL,
  O_RDONLY,
  O_WRONLY,
} from '../descriptors/linux-file-calls.ts';
import { errorCodeOf } from '../descriptors/system-call-error.ts';
import type { SandboxIdentity } from './sandbox-identity.ts';
import { WAITER_SCRIPT } from './sandbox-waiter.ts';

export type { SandboxIdentity } from './sandbox-identity.ts';

export interface SandboxStateDirectory {
  path: string;
  /**
   * The `passwd` and `group` files of `identity`, placed when missing (never replaced).
   * Throws with the reason when the directory became unsafe.
   */
  accounts(identity: SandboxIdentity): { passwd: string; group: string };
  /** The waiter's script (sandbox-waiter.ts). */
  waiter: string;
  /**
   * `text` placed as `<prefix>-<hash of text><suffix>` (never replaced once there, like the waiter),
   * readable by every sandbox uid; its path. Throws with the reason when the directory became unsafe.
   */
  placeProgram(prefix: string, suffix: string, text: string): string;
  emptyFile: string;
  emptyDirectory: string;
  /** Recreates any file that went missing. Throws with the reason when the directory became unsafe. */
  ensure(): void;
}

/** The `passwd` and `group` texts of a sandbox. Pure. */
export function synthesizeAccounts(
  identity: SandboxIdentity,
  shell: string,
): { passwd: string; group: string } {
  return {
    passwd:
      'root:x:0:0:root:/nonexistent:/usr/sbin/nologin\n' +
      `${identity.user}:x:${identity.uid}:${identity.gid}:Mango shell sandbox:${identity.home}:${shell}\n` +
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
    group: `root:x:0:\n${identity.user}:x:${identity.gid}:\nnogroup:x:65534:\n`,
  };
}

/** Why the directory described by `stats` must not be used, or undefined when it is ours alone. */
function unsafeBecause(path: string, stats: Stats): string | undefined {
  const ownUid = process.getuid?.();
  if (ownUid !== undefined && stats.uid !== ownUid)
    return `${path} belongs to uid ${stats.uid}, not to this server.`;
  if ((stats.mode & 0o022) !== 0)
    return `${path} is writable by others (mode ${(stats.mode & 0o777).toString(8)}).`;
  return undefined;
}

/** Creates `name` in `directory` unless something is there already (that is checked by the caller). */
function createDirectoryOnce(directory: HeldDirectory, name: string, mode: number): void {
  try {
    directory.createDirectory(name, mode);
  } catch (error) {
    if (errorCodeOf(error) !== 'EEXIST') throw error;
  }
}

/** Puts `text` at `name` unless an entry is already there; never replaces one (see the module header). */
function placeOnce(directory: HeldDirectory, name: string, text: string): void {
  if (directory.statEntryIfPresent(name)) return;
  const temporary = `${name}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  const fd = directory.openDescriptor(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644);
  try {
    const bytes = new TextEncoder().encode(text);
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written);
    // The umask may have narrowed the creation mode: the sandbox user must be able to read it.
    fchmodSync(fd, 0o644);
  } finally {
    closeDescriptor(fd);
  }
  try {
    directory.rename(temporary, directory, name, { noReplace: true });
  } catch (error) {
    // Another process placed the same file first: its copy is as good as ours.
    directory.removeFile(temporary);
    if (errorCodeOf(error) !== 'EEXIST') throw error;
  }
}

/**
 * Makes `name` an empty, mode-000 cover of `kind`. A cover that is there with another mode gets mode
 * 000 through a descriptor of its own; anything else at the name is refused.
 */
function placeCover(directory: HeldDirectory, name: string, kind: 'file' | 'directory'): void {
  if (!directory.statEntryIfPresent(name)) {
    if (kind === 'directory') {
      createDirectoryOnce(directory, name, 0o000);
    } else {
      try {
        closeDescriptor(directory.openDescriptor(name, O_WRONLY | O_CREAT | O_EXCL, 0o000));
      } catch (error) {
        if (errorCodeOf(error) !== 'EEXIST') throw error;
      }
    }
  }
  const stats = directory.statEntry(name);
  const shown = join(directory.path, name);
  if (kind === 'directory' ? !stats.isDirectory() : !stats.isFile()) {
    throw new Error(`the sandbox state directory is unsafe: ${shown} is not a ${kind}.`);
  }
  if ((stats.mode & 0o7777) === 0) return;
  const fd = directory.openDescriptor(name, O_RDONLY | (kind === 'directory' ? O_DIRECTORY : 0));
  try {
    fchmodSync(fd, 0o000);
  } finally {
    closeDescriptor(fd);
  }
}

/** A short name for `text`, so different account texts never share a file. */
function contentTag(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Opens the state directory below `parent` by descriptor, creating it when missing, and checks it. */
function openChecked(parent: HeldDirectory, name: string, path: string): HeldDirectory {
  createDirectoryOnce(parent, name, 0o755);
  let directory: HeldDirectory;
  try {
    directory = parent.openDirectory(name);
  } catch (error) {
    const code = errorCodeOf(error);
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      throw new Error(`the sandbox state directory is unsafe: ${path} is not a directory.`);
    }
    throw error;
  }
  try {
    const problem = unsafeBecause(path, directory.stat());
    if (problem) throw new Error(`the sandbox state directory is unsafe: ${problem}`);
    directory.changeMode(0o755);
    return directory;
  } catch (error) {
    directory.close();
    throw error;
  }
}

/** The state directory's name for calls that all run as `identity`. */
export function sharedStateDirectoryName(identity: Pick<SandboxIdentity, 'uid' | 'gid'>): string {
  return `mango-sandbox-${identity.uid}-${identity.gid}`;
}

/** The state directory's name for calls that run as a uid per user, from the range at `base`. */
export function rangeStateDirectoryName(base: number): string {
  return `mango-sandbox-range-${base}`;
}

/**
 * Opens (creating when missing) the state directory `name` under `parent` (default: the system temp
 * directory), with the accounts of `identity` placed. Throws an Error naming the reason when it is
 * unsafe to use.
 */
export function openSandboxStateDirectory(
  identity: SandboxIdentity,
  parent: string = tmpdir(),
  name: string = sharedStateDirectoryName(identity),
): SandboxStateDirectory {
  // The parent is the operator's choice (TMPDIR); only what lies below it is checked by descriptor.
  const parentPath = realpathSync(parent);
  const path = join(parentPath, name);
  const names = {
    waiter: `waiter-${contentTag(WAITER_SCRIPT)}.pl`,
    emptyFile: 'covered-file',
    emptyDirectory: 'covered-directory',
  };
  const inDirectory = <T>(act: (directory: HeldDirectory) => T): T => {
    const held = HeldDirectory.open(parentPath);
    try {
      const directory = openChecked(held, name, path);
      try {
        return act(directory);
      } finally {
        directory.close();
      }
    } finally {
      held.close();
    }
  };
  const ensure = () =>
    inDirectory((directory) => {
      placeOnce(directory, names.waiter, WAITER_SCRIPT);
      placeCover(directory, names.emptyFile, 'file');
      placeCover(directory, names.emptyDirectory, 'directory');
    });
  const accounts = (of: SandboxIdentity) => {
    const texts = synthesizeAccounts(of, '/bin/bash');
    const passwd = `passwd-${contentTag(texts.passwd)}`;
    const group = `group-${contentTag(texts.group)}`;
    inDirectory((directory) => {
      placeOnce(directory, passwd, texts.passwd);
      placeOnce(directory, group, texts.group);
    });
    return { passwd: join(path, passwd), group: join(path, group) };
  };
  const placeProgram = (prefix: string, suffix: string, text: string) => {
    const file = `${prefix}-${contentTag(text)}${suffix}`;
    inDirectory((directory) => placeOnce(directory, file, text));
    return join(path, file);
  };
  ensure();
  accounts(identity);
  return {
    path,
    accounts,
    placeProgram,
    waiter: join(path, names.waiter),
    emptyFile: join(path, names.emptyFile),
    emptyDirectory: join(path, names.emptyDirectory),
    ensure,
  };
}
