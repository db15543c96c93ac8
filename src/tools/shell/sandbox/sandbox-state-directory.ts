/**
 * The few host files every sandbox of one server mounts: the synthesized `/etc/passwd` and `/etc/group`
 * (root, the sandbox user, nobody: nothing about the host's accounts) and the empty, mode-000 file and
 * directory that cover protected and denied paths. They live in one private directory created when the
 * sandbox is, readable by the sandbox user (bubblewrap opens mount sources as that user) and never
 * writable by it. It is removed by `remove()` or, at the latest, when the process exits.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Removes the directory. Idempotent. */
  remove(): void;
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

/** Directories not removed yet; one exit listener for all of them. */
const live = new Set<string>();
let exitListener = false;

function removeAtExit(path: string): void {
  live.add(path);
  if (exitListener) return;
  exitListener = true;
  process.on('exit', () => {
    for (const directory of live) rmSync(directory, { recursive: true, force: true });
  });
}

export function createSandboxStateDirectory(identity: SandboxIdentity): SandboxStateDirectory {
  const path = mkdtempSync(join(tmpdir(), 'mango-sandbox-'));
  removeAtExit(path);
  chmodSync(path, 0o755);
  const accounts = synthesizeAccounts(identity, '/bin/bash');
  const passwd = join(path, 'passwd');
  const group = join(path, 'group');
  const emptyFile = join(path, 'covered-file');
  const emptyDirectory = join(path, 'covered-directory');
  writeFileSync(passwd, accounts.passwd, { mode: 0o644 });
  writeFileSync(group, accounts.group, { mode: 0o644 });
  writeFileSync(emptyFile, '', { mode: 0o000 });
  mkdirSync(emptyDirectory, { mode: 0o000 });
  // The umask may have kept bits; the covers must be exactly 000 and the accounts world-readable.
  chmodSync(passwd, 0o644);
  chmodSync(group, 0o644);
  chmodSync(emptyFile, 0o000);
  chmodSync(emptyDirectory, 0o000);
  let removed = false;
  return {
    path,
    passwd,
    group,
    emptyFile,
    emptyDirectory,
    remove() {
      if (removed) return;
      removed = true;
      live.delete(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
