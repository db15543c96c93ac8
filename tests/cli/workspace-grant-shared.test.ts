/**
 * A read-write directory granted to two users, end to end with real bubblewrap on both databases:
 * `mango workspace grant` refuses it while the users' uids cannot write it (with the exact message),
 * `--fix-owner` gives it to the grant's group, and then a file one user's command creates there is one
 * the other user's command can change (setgid group, umask 0002). The sandbox reads the same
 * `sandbox_ids` the command wrote, as a server on that database would. And the rule the check states
 * holds for bubblewrap itself: a directory above a grant that the uid cannot pass fails the call.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { ToolError } from '../../src/tools/errors.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { capturedIo } from '../helpers/captured-io.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { testSandboxUsers } from '../helpers/test-sandbox-users.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';

const BASE = DEFAULT_SANDBOX_ID_RANGE.base;

/** Per-user uids, and so grant groups and the check, apply only when this process is root. */
function describeAsRoot(name: string, body: () => void): void {
  if (process.getuid?.() === 0) {
    describeSandbox(name, body);
    return;
  }
  console.warn(`[skip] ${name}: users have uids of their own only when the server runs as root`);
  describe.skip(name, body);
}

for (const backend of BACKENDS) {
  describeAsRoot(`a read-write grant shared by two users, on ${backend}`, () => {
    let handle: TestDatabase;
    let base: string;
    let sandbox: BubblewrapSandbox;
    const ids = () => new DatabaseSandboxIdRepository(handle.database);

    beforeAll(async () => {
      handle = await createTestDatabase(backend);
      // Outside /tmp, like a deployment (the sandbox's /tmp is its own); passable by every uid.
      base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-grant-shared-'));
      chmodSync(base, 0o755);
      sandbox = createTestSandbox({ users: testSandboxUsers(DEFAULT_SANDBOX_ID_RANGE, ids()) });
    }, 30_000);
    afterAll(async () => {
      sandbox.dispose();
      await handle.dispose();
      rmSync(base, { recursive: true, force: true });
    });

    async function mango(argv: string[]) {
      const { io, written } = capturedIo(base, {
        MANGO_DATA_DIR: handle.config.dataDirectory,
        DATABASE_URL: handle.config.databaseUrl ?? '',
        MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      });
      const code = await runCli(argv, io);
      return { code, ...written };
    }

    async function userId(name: string): Promise<string> {
      expect((await mango(['user', 'add', name])).code).toBe(0);
      return (await new DatabaseUserRepository(handle.database).findByName(name))!.id;
    }

    function bash(command: string, directory: string, user: string) {
      const reachable = computeReachableSet({
        workspaces: [{ path: directory, access: 'read-write', kind: 'granted' }],
        workingDirectory: directory,
        homeDirectory: directory,
        confined: true,
        protectedPaths: [handle.config.dataDirectory, handle.config.workspacesDirectory],
      });
      return sandbox.run(bashCommand(command, directory, reachable, { userId: user }));
    }

    test('refused until --fix-owner; then one user’s new file is the other’s to change', async () => {
      const [ana, ben] = [await userId('ana'), await userId('ben')];
      const shared = join(base, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o755);

      const refused = await mango(['workspace', 'grant', 'ana', shared]);
      const anaUid = (await ids().find('user', ana))!;
      const group = (await ids().find('grant', shared))!;
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `mango: Cannot grant ${shared}: the user's commands run as uid ${anaUid} (gid ${anaUid}, groups ${BASE}, ${group}) ` +
          `and cannot read, write and enter ${shared} (mode 0755, owner 0:0; the others' bits apply), which a read-write grant needs (rwx). ` +
          `Give the grant's group access: \`chgrp -R ${group} ${shared} && chmod -R g+rwX ${shared} && find ${shared} -type d -exec chmod g+s {} +\`, ` +
          'or run again with --fix-owner.\n',
      });
      expect(statSync(shared).gid).toBe(0);

      expect(await mango(['workspace', 'grant', 'ana', shared, '--fix-owner'])).toEqual({
        code: 0,
        stdout:
          `Gave ${shared} to group ${group}: 1 directory and 0 files (group rwx on directories, rw on files, x on files only where the owner has it; setgid on directories; owners unchanged).\n` +
          `Granted ${shared} to "ana" (read-write).\n`,
        stderr: '',
      });
      expect([statSync(shared).uid, statSync(shared).gid, statSync(shared).mode & 0o7777]).toEqual([
        0,
        group,
        0o2775,
      ]);
      // The second user needs no fix: the directory is the grant's group's now.
      expect(await mango(['workspace', 'grant', 'ben', shared])).toEqual({
        code: 0,
        stdout: `Granted ${shared} to "ben" (read-write).\n`,
        stderr: '',
      });

      const created = await bash(
        "printf 'from ana\\n' > notes.txt && mkdir drafts && printf 'a\\n' > drafts/one.txt",
        shared,
        ana,
      );
      expect([created.exitCode, created.stdout, created.stderr]).toEqual([0, '', '']);
      // Seen from the host: the sandbox's user namespace maps only the user's own ids, so inside it
      // the grant's group shows as the overflow gid, though the kernel checks it all the same.
      const notes = statSync(join(shared, 'notes.txt'));
      expect([notes.uid, notes.gid, notes.mode & 0o7777]).toEqual([anaUid, group, 0o664]);
      const drafts = statSync(join(shared, 'drafts'));
      expect([drafts.uid, drafts.gid, drafts.mode & 0o7777]).toEqual([anaUid, group, 0o2775]);
      const benUid = (await ids().find('user', ben))!;
      const changed = await bash(
        "printf 'from ben\\n' >> notes.txt && printf 'b\\n' > drafts/two.txt && id -u && cat notes.txt",
        shared,
        ben,
      );
      expect([changed.exitCode, changed.stdout, changed.stderr]).toEqual([
        0,
        `${benUid}\nfrom ana\nfrom ben\n`,
        '',
      ]);
      expect(statSync(join(shared, 'drafts', 'two.txt')).gid).toBe(group);
    });

    test('bubblewrap itself cannot mount a grant below a directory the uid cannot pass', async () => {
      const carl = await userId('carl');
      const closed = join(base, 'closed');
      const inner = join(closed, 'inner');
      mkdirSync(inner, { recursive: true });
      chmodSync(closed, 0o700);
      chmodSync(inner, 0o777);
      const refused = await mango(['workspace', 'grant', 'carl', inner]);
      const carlUid = (await ids().find('user', carl))!;
      const group = (await ids().find('grant', inner))!;
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `mango: Cannot grant ${inner}: the user's commands run as uid ${carlUid} (gid ${carlUid}, groups ${BASE}, ${group}) ` +
          `and cannot pass ${closed} (mode 0700, owner 0:0; the others' bits apply): every directory above a grant must let them through (--x). ` +
          `Let them pass: \`chmod o+x ${closed}\` (--fix-owner changes only the granted directory, never the directories above it).\n`,
      });
      const failed = bash('true', inner, carl);
      await expect(failed).rejects.toBeInstanceOf(ToolError);
      await expect(failed).rejects.toThrow('Permission denied');
      chmodSync(closed, 0o711);
      const passed = await bash('pwd', inner, carl);
      expect([passed.exitCode, passed.stdout]).toEqual([0, `${inner}\n`]);
    });
  });
}
