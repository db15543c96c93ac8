/**
 * `mango workspace move-to-image`, against a real database (both backends) and real ext4 images:
 * - a plain workspace with nested files, a symbolic link planted to point at a host file outside, a
 *   setuid file, a hard link and a FIFO is moved by descriptor: the link is copied as a link and never
 *   followed (the host file is untouched and no byte of it is in the image), owners, modes and times
 *   are kept, the hard link stays one file, the FIFO is left out and named, the old copy is gone;
 * - running it again finds the workspace on its image;
 * - a workspace over its quota is moved whole: its user's writes are refused (write_file says the
 *   workspace is over its quota; the user's own uid cannot allocate) until files are removed, and its
 *   image is shrunk to the quota at its next mount;
 * - it refuses while a server holds the data directory's lock;
 * - a move killed while it copies leaves the workspace refused by every server and command, and
 *   running it again finishes it.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  chownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../../src/config/byte-size.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from '../../src/sandbox/shell-sandbox-config.ts';
import { createWorkspaceService } from '../../src/workspaces/create-workspace-service.ts';
import { mountAt } from '../../src/workspaces/mount-table.ts';
import { WorkspaceDisks } from '../../src/workspaces/workspace-disks.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { releaseMountsUnder } from '../helpers/release-mounts.ts';
import { runAsHostAccount } from '../helpers/tenant-server.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { describeDisks, MIB } from '../helpers/test-disks.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const ROOT = join(import.meta.dir, '..', '..');
/** Owners the workspaces' files get: not root, so keeping them is visible. */
const OWNER = { uid: 1_900_000_501, gid: 1_900_000_501 };
/** The owner as a host process, in the sandbox group that passes the workspaces directory. */
const OWNER_PROCESS = { ...OWNER, groups: [1_900_000_000] };
const OTHER = { uid: 1_900_000_502, gid: 1_900_000_503 };
const MARKER = 'host-secret-4b9e1f-never-copied';
const TIME = new Date('2026-03-04T05:06:07.000Z');

describeDisks('mango workspace move-to-image', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let handle: TestDatabase;
    const ids: Record<string, string> = {};
    let hostFile = '';

    const env = () => ({
      MANGO_DATA_DIR: handle.config.dataDirectory,
      DATABASE_URL: handle.config.databaseUrl,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      MANGO_USER_DISK_BYTES: '8MiB',
      MANGO_SHELL_SANDBOX: 'off',
    });
    async function run(argv: string[]) {
      return runCliCaptured(argv, handle.config.dataDirectory, env());
    }
    const workspace = (name: string) => join(handle.config.workspacesDirectory, ids[name]!);
    const image = (name: string) => join(handle.config.dataDirectory, 'disks', `${ids[name]}.ext4`);
    const used = (path: string) => {
      const stats = statfsSync(path);
      return (stats.blocks - stats.bfree) * stats.bsize;
    };
    const sizeOf = (path: string) => {
      const stats = statfsSync(path);
      return stats.blocks * stats.bsize;
    };

    let restoreSandbox: (() => void) | undefined;
    beforeAll(async () => {
      handle = await createTestDatabase(backend);
      // The shell sandbox these commands' environment selects (off): the owners here are test uids,
      // not the users' sandbox uids, so their file work stays in this process.
      restoreSandbox = installShellSandbox(createShellSandboxFromEnvironment(env(), { log: () => {} }));
      // Passable for the owners' uids, which run commands on the host below (no sandbox group here).
      chmodSync(handle.config.workspacesDirectory, 0o711);
      const users = new DatabaseUserRepository(handle.database);
      // Made before quotas: plain directories, their user's.
      const plain = createWorkspaceService(
        {
          dataDirectory: handle.config.dataDirectory,
          workspacesDirectory: handle.config.workspacesDirectory,
        },
        new DatabaseWorkspaceRepository(handle.database),
        undefined,
        { ownerOf: async () => OWNER },
      );
      for (const name of ['alice', 'bob', 'carol', 'dave']) {
        ids[name] = (await users.create(name)).user.id;
        await plain.personalWorkspace(ids[name]!);
      }
      hostFile = join(handle.config.dataDirectory, 'host-file.txt');
      writeFileSync(hostFile, `${MARKER}\n`, { mode: 0o600 });

      const alice = workspace('alice');
      mkdirSync(join(alice, 'src', 'app'), { recursive: true });
      mkdirSync(join(alice, 'docs'), { mode: 0o750 });
      mkdirSync(join(alice, 'bin'));
      writeFileSync(join(alice, 'src', 'app', 'main.ts'), 'export const answer = 42;\n');
      writeFileSync(join(alice, 'docs', 'readme.md'), '# notes\n', { mode: 0o640 });
      writeFileSync(join(alice, 'bin', 'tool'), '#!/bin/sh\necho tool\n');
      writeFileSync(join(alice, 'a.txt'), 'shared by two names\n');
      linkSync(join(alice, 'a.txt'), join(alice, 'src', 'a-link.txt'));
      symlinkSync(hostFile, join(alice, 'escape'));
      Bun.spawnSync(['mkfifo', join(alice, 'pipe')]);
      for (const path of ['src', 'src/app', 'src/app/main.ts', 'bin', 'bin/tool', 'a.txt', 'pipe']) {
        chownSync(join(alice, path), OWNER.uid, OWNER.gid);
      }
      chownSync(join(alice, 'docs'), OTHER.uid, OTHER.gid);
      chownSync(join(alice, 'docs', 'readme.md'), OTHER.uid, OTHER.gid);
      Bun.spawnSync(['chown', '-h', `${OTHER.uid}:${OTHER.gid}`, join(alice, 'escape')]);
      // After the chown, which would clear it.
      chmodSync(join(alice, 'bin', 'tool'), 0o4755);
      chmodSync(join(alice, 'docs'), 0o750);
      utimesSync(join(alice, 'docs', 'readme.md'), TIME, TIME);
      utimesSync(join(alice, 'docs'), TIME, TIME);

      // Over the 8 MiB quota.
      writeFileSync(join(workspace('bob'), 'big.bin'), new Uint8Array(10 * MIB));
      chownSync(join(workspace('bob'), 'big.bin'), OWNER.uid, OWNER.gid);

      // Enough files that the copy is still going when it is killed, within a quota of their own.
      await new DatabaseWorkspaceRepository(handle.database).setDiskQuota(ids.dave!, 32 * MIB);
      for (let index = 0; index < 6000; index++) {
        writeFileSync(join(workspace('dave'), `file-${index}.txt`), `${index}\n`);
      }
    }, 60_000);

    afterAll(async () => {
      restoreSandbox?.();
      await releaseMountsUnder(handle.config.workspacesDirectory);
      await releaseMountsUnder(handle.config.dataDirectory);
      await handle.dispose();
    });

    test('a workspace is copied by descriptor: links as links, owners, modes and times kept', async () => {
      const alice = workspace('alice');
      const hostBefore = [
        readFileSync(hostFile, 'utf8'),
        lstatSync(hostFile).mode,
        lstatSync(hostFile).mtimeMs,
      ];
      const result = await run(['workspace', 'move-to-image', 'alice']);
      expect(result).toEqual({
        code: 0,
        stdout:
          `"alice": moved onto its disk image (${image('alice')}, 8 MiB): ${formatBytes(used(alice))} used of its 8 MiB quota.\n` +
          '  copied 4 directories, 4 files, 1 symbolic links (as links) and 1 hard links\n' +
          '  left out: pipe (a FIFO, socket or device)\n',
        stderr: '',
      });
      expect(mountAt(alice)?.fsType).toBe('ext4');
      expect(readdirSync(alice).sort()).toEqual(['a.txt', 'bin', 'docs', 'escape', 'src']);
      // The planted link is a link still, to the same text; the host file is as it was, nowhere copied.
      expect(lstatSync(join(alice, 'escape')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(alice, 'escape'))).toBe(hostFile);
      expect([lstatSync(join(alice, 'escape')).uid, lstatSync(join(alice, 'escape')).gid]).toEqual([
        OTHER.uid,
        OTHER.gid,
      ]);
      expect([readFileSync(hostFile, 'utf8'), lstatSync(hostFile).mode, lstatSync(hostFile).mtimeMs]).toEqual(
        hostBefore,
      );
      expect(readFileSync(image('alice')).includes(MARKER)).toBe(false);
      const tool = statSync(join(alice, 'bin', 'tool'));
      expect([tool.mode & 0o7777, tool.uid, tool.gid]).toEqual([0o4755, OWNER.uid, OWNER.gid]);
      const readme = statSync(join(alice, 'docs', 'readme.md'));
      expect([readme.mode & 0o7777, readme.uid, readme.gid, readme.mtimeMs]).toEqual([
        0o640,
        OTHER.uid,
        OTHER.gid,
        TIME.getTime(),
      ]);
      const docs = statSync(join(alice, 'docs'));
      expect([docs.mode & 0o7777, docs.uid, docs.mtimeMs]).toEqual([0o750, OTHER.uid, TIME.getTime()]);
      expect(readFileSync(join(alice, 'src', 'app', 'main.ts'), 'utf8')).toBe('export const answer = 42;\n');
      expect(statSync(join(alice, 'src', 'a-link.txt')).ino).toBe(statSync(join(alice, 'a.txt')).ino);
      const root = statSync(alice);
      expect([root.mode & 0o7777, root.uid, root.gid]).toEqual([0o700, OWNER.uid, OWNER.gid]);
      // The old copy is gone; only the users' entries are left in the workspaces directory.
      expect(readdirSync(handle.config.workspacesDirectory).filter((name) => name.startsWith('.'))).toEqual(
        [],
      );
      expect(await run(['workspace', 'move-to-image', 'alice'])).toEqual({
        code: 0,
        stdout: `"alice": already on its disk image (${image('alice')}, 8 MiB): ${formatBytes(used(alice))} used of its 8 MiB quota.\n`,
        stderr: '',
      });
    }, 30_000);

    test('a workspace over its quota is moved whole, and takes no write until files are removed', async () => {
      const bob = workspace('bob');
      const result = await run(['workspace', 'move-to-image', 'bob']);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(
        `"bob": moved onto its disk image (${image('bob')}, ${formatBytes(sizeOf(bob))}): ${formatBytes(used(bob))} used, over its quota of 8 MiB: writes are refused and only removing files works until it is under.\n` +
          '  copied 0 directories, 1 files, 0 symbolic links (as links) and 0 hard links\n',
      );
      expect(statSync(join(bob, 'big.bin')).size).toBe(10 * MIB);
      const written = await run([
        'tool',
        'call',
        'write_file',
        '{"path":"note.txt","content":"hi"}',
        '--user',
        'bob',
      ]);
      expect(written.code).toBe(1);
      expect(JSON.parse(written.stdout)).toEqual({
        ok: false,
        error: {
          classification: 'quota_exceeded',
          message: `The workspace is over its quota (${formatBytes(used(bob))} used, limit 8 MiB): remove files to write again. Nothing was written.`,
        },
      });
      const refused = runAsHostAccount(OWNER_PROCESS, ['fallocate', '-l', '64K', join(bob, 'more.bin')]);
      expect(refused).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: 'fallocate: fallocate failed: No space left on device\n',
      });
      rmSync(join(bob, 'more.bin'), { force: true });
      expect(runAsHostAccount(OWNER_PROCESS, ['rm', join(bob, 'big.bin')])).toEqual({
        exitCode: 0,
        stdout: '',
        stderr: '',
      });
      const again = await run([
        'tool',
        'call',
        'write_file',
        '{"path":"note.txt","content":"hi"}',
        '--user',
        'bob',
      ]);
      expect(again.code).toBe(0);
      expect(readFileSync(join(bob, 'note.txt'), 'utf8')).toBe('hi');
      // Under its quota now, the image is shrunk to it the next time it is mounted (a restart).
      expect(Bun.spawnSync(['umount', bob]).exitCode).toBe(0);
      expect((await run(['tool', 'call', 'list_directory', '{"path":"."}', '--user', 'bob'])).code).toBe(0);
      expect(sizeOf(bob)).toBe(8 * MIB);
      expect(readFileSync(join(bob, 'note.txt'), 'utf8')).toBe('hi');
    }, 30_000);

    test('it refuses while a server holds the data directory', async () => {
      const disks = new WorkspaceDisks({
        dataDirectory: handle.config.dataDirectory,
        workspacesDirectory: handle.config.workspacesDirectory,
        defaultQuotaBytes: 8 * MIB,
        repository: new DatabaseWorkspaceRepository(handle.database),
      });
      const serving = await disks.holdWhileServing();
      try {
        expect(await run(['workspace', 'move-to-image', 'carol'])).toEqual({
          code: 1,
          stdout: '',
          stderr: `mango: A server is running with this data directory (it holds ${join(disks.disksDirectory, 'servers.lock')}): stop it first. Moving a workspace needs it unused.\n`,
        });
      } finally {
        serving.release();
      }
      expect(mountAt(workspace('carol'))).toBeUndefined();
    });

    test('a move killed while it copies is refused until run again, which finishes it', async () => {
      const dave = workspace('dave');
      const moving = join(handle.config.dataDirectory, 'disks', `${ids.dave}.moving`);
      const child = Bun.spawn(
        [process.execPath, join(ROOT, 'src', 'cli', 'main.ts'), 'workspace', 'move-to-image', 'dave'],
        {
          env: { ...env(), PATH: process.env.PATH ?? '/usr/bin:/bin' },
          stdio: ['ignore', 'ignore', 'ignore'],
        },
      );
      // Killed once the copy is under way: the image is mounted aside and files arrive in it.
      const copying = await waitUntil(
        () => mountAt(moving) !== undefined && readdirSync(moving).length > 100,
        30_000,
      );
      child.kill('SIGKILL');
      await child.exited;
      expect(copying).toBe(true);
      expect(mountAt(moving)?.fsType).toBe('ext4');
      expect(readdirSync(moving).length).toBeLessThan(6000);
      const refused = await run(['tool', 'call', 'list_directory', '{"path":"."}', '--user', 'dave']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        `The personal workspace ${dave} is being moved onto its disk image and cannot be used until that is done: with the server stopped, run \`mango workspace move-to-image\` for this user again to finish it.`,
      );
      const finished = await run(['workspace', 'move-to-image', 'dave']);
      expect(finished.code).toBe(0);
      expect(finished.stdout.split('\n')[0]).toBe(
        `"dave": moved onto its disk image (${image('dave')}, ${formatBytes(sizeOf(dave))}): ${formatBytes(used(dave))} used of its 32 MiB quota.`,
      );
      expect(mountAt(moving)).toBeUndefined();
      const names = readdirSync(dave);
      expect(names.length).toBe(6000);
      for (const index of [0, 1234, 5999]) {
        expect(readFileSync(join(dave, `file-${index}.txt`), 'utf8')).toBe(`${index}\n`);
      }
      expect(
        readdirSync(join(handle.config.dataDirectory, 'disks'))
          .filter((name) => name.includes(ids.dave!))
          .sort(),
      ).toEqual([`${ids.dave}.ext4`, `${ids.dave}.lock`]);
    }, 60_000);
  });
});
