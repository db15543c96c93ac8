/**
 * The few host files every sandbox mounts: the synthesized `/etc/passwd` and `/etc/group` (root, the
 * sandbox user, nobody: nothing about the host's accounts) and the empty, mode-000 file and directory
 * that cover protected and denied paths.
 *
 * They live in one directory per sandbox identity, `<tmpdir>/mango-sandbox-<uid>-<gid>`, shared by every
 * sandbox and every process of this server user, so nothing is left behind per process, whatever way a
 * process ends (a `kill -9` runs no exit handler). Its contents are the same for every user of it.
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
 *   into place, so nobody sees half a file and a concurrent creator's link simply loses.
 * - `ensure()` recreates whatever a temp-directory cleaner removed, before each command.
 * - Readable (and traversable) by the sandbox user, since bubblewrap opens mount sources as that user;
 *   never writable by it.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SandboxIdentity {
  uid: number;
  gid: number;
  user: string;
  /** The private home inside the sandbox. */
  home: string;
}

export interface SandboxStateDirectory {
  path: string;
  passwd: string;
  group: string;
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

/** Why `path` must not be used, or undefined when it is ours alone. */
function unsafeBecause(path: string): string | undefined {
  const stats = lstatSync(path);
  if (stats.isSymbolicLink() || !stats.isDirectory()) return `${path} is not a directory.`;
  const ownUid = process.getuid?.();
  if (ownUid !== undefined && stats.uid !== ownUid)
    return `${path} belongs to uid ${stats.uid}, not to this server.`;
  if ((stats.mode & 0o022) !== 0)
    return `${path} is writable by others (mode ${(stats.mode & 0o777).toString(8)}).`;
  return undefined;
}

/** Puts `text` at `path` unless a file is already there; never replaces one (see the module header). */
function placeOnce(path: string, text: string): void {
  if (existsSync(path)) return;
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(temporary, text, { mode: 0o644 });
  try {
    chmodSync(temporary, 0o644);
    linkSync(temporary, path);
  } catch (error) {
    // Another process placed the same file first: its copy is as good as ours.
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** A short name for `text`, so different account texts never share a file. */
function contentTag(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Opens (creating when missing) the state directory of `identity` under `parent` (default: the
 * system temp directory). Throws an Error naming the reason when it is unsafe to use.
 */
export function openSandboxStateDirectory(
  identity: SandboxIdentity,
  parent: string = tmpdir(),
): SandboxStateDirectory {
  const path = join(parent, `mango-sandbox-${identity.uid}-${identity.gid}`);
  const accounts = synthesizeAccounts(identity, '/bin/bash');
  const files = {
    passwd: join(path, `passwd-${contentTag(accounts.passwd)}`),
    group: join(path, `group-${contentTag(accounts.group)}`),
    emptyFile: join(path, 'covered-file'),
    emptyDirectory: join(path, 'covered-directory'),
  };
  const ensure = () => {
    try {
      mkdirSync(path, { mode: 0o755 });
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST') throw error;
    }
    const problem = unsafeBecause(path);
    if (problem) throw new Error(`the sandbox state directory is unsafe: ${problem}`);
    chmodSync(path, 0o755);
    placeOnce(files.passwd, accounts.passwd);
    placeOnce(files.group, accounts.group);
    if (!existsSync(files.emptyFile)) {
      try {
        writeFileSync(files.emptyFile, '', { mode: 0o000, flag: 'wx' });
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
      chmodSync(files.emptyFile, 0o000);
    }
    if (!existsSync(files.emptyDirectory)) {
      try {
        mkdirSync(files.emptyDirectory, { mode: 0o000 });
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
      chmodSync(files.emptyDirectory, 0o000);
    }
  };
  ensure();
  return { path, ...files, ensure };
}
