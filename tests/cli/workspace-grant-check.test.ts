/**
 * `mango workspace grant` as root, in process on both databases: each grant gets a group of its own,
 * a directory the user's uid could not reach is refused naming the first directory that fails with
 * the command that fixes it, a read-only grant asks only for `r-x`, and `--fix-owner` gives the
 * granted tree (never what lies above it) to the grant's group by descriptor, leaving hard-linked
 * files and symlinks' targets alone. The sandbox run itself: workspace-grant-shared.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import { capturedIo } from '../helpers/captured-io.ts';
import { testChat } from '../helpers/test-chat.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const BASE = DEFAULT_SANDBOX_ID_RANGE.base;
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn('[skip] mango workspace grant’s sandbox check: it applies only as root');

/** Mode, owner and group of `path` itself, as numbers. */
function owned(path: string): [number, number, number] {
  const stats = lstatSync(path);
  return [stats.mode & 0o7777, stats.uid, stats.gid];
}

describe.skipIf(!isRoot).each(BACKENDS)('mango workspace grant as root on %s', (backend) => {
  let handle: TestDatabase;
  let base: string;
  const ids = () => new DatabaseSandboxIdRepository(handle.database);
  const users = () => new DatabaseUserRepository(handle.database);

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    base = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-grant-check-'));
    chmodSync(base, 0o755);
  }, 30_000);
  afterAll(async () => {
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

  /** A new user and their sandbox uid. */
  async function user(name: string): Promise<{ id: string; uid: number }> {
    const { user: created } = await users().create(name);
    const uid = await ids().allocate(
      'user',
      created.id,
      DEFAULT_SANDBOX_ID_RANGE,
      '2026-12-02T00:00:00.000Z',
    );
    return { id: created.id, uid };
  }

  function grantGroup(path: string): Promise<number> {
    return ids().allocate('grant', path, DEFAULT_SANDBOX_ID_RANGE, '2026-12-02T00:00:00.000Z');
  }

  function directory(name: string, mode: number): string {
    const path = join(base, name);
    mkdirSync(path);
    chmodSync(path, mode);
    return path;
  }

  test('a read-only grant asks only for r-x: the group’s r-x passes it, and read-write is refused', async () => {
    const { uid } = await user('rita');
    const path = directory('datasets', 0o750);
    const group = await grantGroup(path);
    chownSync(path, 0, group);
    expect(await mango(['workspace', 'grant', 'rita', path, '--read-only'])).toEqual({
      code: 0,
      stdout: `Granted ${path} to "rita" (read-only).\n`,
      stderr: '',
    });
    expect(await mango(['workspace', 'grant', 'rita', path])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `mango: Cannot grant ${path}: the user's commands run as uid ${uid} (gid ${uid}, groups ${BASE}, ${group}) ` +
        `and cannot read, write and enter ${path} (mode 0750, owner 0:${group}; its group's bits apply, as the group is one of theirs), which a read-write grant needs (rwx). ` +
        `Give the grant's group access: \`chgrp -R ${group} ${path} && chmod -R g+rwX ${path} && find ${path} -type d -exec chmod g+s {} +\`, ` +
        'or run again with --fix-owner.\n',
    });
    const [stored] = await new DatabaseWorkspaceRepository(handle.database).listGrants(
      (await users().findByName('rita'))!.id,
    );
    expect([stored?.path, stored?.readOnly]).toEqual([path, true]);
  });

  test('a read-only grant of a directory nobody else may read is refused asking for r-x', async () => {
    const { uid } = await user('rose');
    const path = directory('private data', 0o700);
    const refused = await mango(['workspace', 'grant', 'rose', path, '--read-only']);
    const group = (await ids().find('grant', path))!;
    const quoted = `'${path}'`;
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `mango: Cannot grant ${path}: the user's commands run as uid ${uid} (gid ${uid}, groups ${BASE}, ${group}) ` +
        `and cannot read and enter ${path} (mode 0700, owner 0:0; the others' bits apply), which a read-only grant needs (r-x). ` +
        `Give the grant's group access: \`chgrp -R ${group} ${quoted} && chmod -R g+rX ${quoted} && find ${quoted} -type d -exec chmod g+s {} +\`, ` +
        'or run again with --fix-owner.\n',
    });
    expect(
      await new DatabaseWorkspaceRepository(handle.database).listGrants(
        (await users().findByName('rose'))!.id,
      ),
    ).toEqual([]);
  });

  test('an ancestor that is 0700 root is refused naming it, and --fix-owner then changes nothing', async () => {
    const { uid } = await user('axel');
    const above = directory('above', 0o700);
    const path = join(above, 'project');
    mkdirSync(path);
    chmodSync(path, 0o755);
    const expected = (group: number) => ({
      code: 1,
      stdout: '',
      stderr:
        `mango: Cannot grant ${path}: the user's commands run as uid ${uid} (gid ${uid}, groups ${BASE}, ${group}) ` +
        `and cannot pass ${above} (mode 0700, owner 0:0; the others' bits apply): every directory above a grant must let them through (--x). ` +
        `Let them pass: \`chmod o+x ${above}\` (--fix-owner changes only the granted directory, never the directories above it).\n`,
    });
    const refused = await mango(['workspace', 'grant', 'axel', path, '--fix-owner']);
    const group = (await ids().find('grant', path))!;
    expect(refused).toEqual(expected(group));
    expect(owned(above)).toEqual([0o700, 0, 0]);
    expect(owned(path)).toEqual([0o755, 0, 0]);
    // The group's bits decide when the group is one of theirs, whatever the others' bits say.
    chownSync(above, 0, BASE);
    chmodSync(above, 0o701);
    expect((await mango(['workspace', 'grant', 'axel', path, '--read-only'])).stderr).toBe(
      `mango: Cannot grant ${path}: the user's commands run as uid ${uid} (gid ${uid}, groups ${BASE}, ${group}) ` +
        `and cannot pass ${above} (mode 0701, owner 0:${BASE}; its group's bits apply, as the group is one of theirs): every directory above a grant must let them through (--x). ` +
        `Let them pass: \`chmod g+x ${above}\` (--fix-owner changes only the granted directory, never the directories above it).\n`,
    );
    chmodSync(above, 0o710);
    expect((await mango(['workspace', 'grant', 'axel', path, '--read-only'])).code).toBe(0);
  });

  test('--fix-owner gives the tree to the grant’s group by descriptor, and leaves links alone', async () => {
    const { uid } = await user('fern');
    const path = directory('site', 0o755);
    const outside = join(base, 'outside.txt');
    writeFileSync(outside, 'not granted\n');
    chmodSync(outside, 0o600);
    mkdirSync(join(path, 'src'));
    chmodSync(join(path, 'src'), 0o700);
    writeFileSync(join(path, 'src', 'page.html'), 'page\n');
    chmodSync(join(path, 'src', 'page.html'), 0o600);
    writeFileSync(join(path, 'build.sh'), '#!/bin/sh\n');
    chownSync(join(path, 'build.sh'), uid, uid);
    chmodSync(join(path, 'build.sh'), 0o4755);
    symlinkSync(outside, join(path, 'link-out'));
    linkSync(outside, join(path, 'hard-link.txt'));
    const refused = await mango(['workspace', 'grant', 'fern', path]);
    expect(refused.code).toBe(1);
    const group = (await ids().find('grant', path))!;

    expect(await mango(['workspace', 'grant', 'fern', path, '--fix-owner'])).toEqual({
      code: 0,
      stdout:
        `Gave ${path} to group ${group}: 2 directories and 2 files (group rwx on directories, rw on files, x on files only where the owner has it; setgid on directories; owners unchanged).\n` +
        `Left 1 file with more than one hard link as it was (another link may lie outside ${path}, and a change would reach it there too): hard-link.txt.\n` +
        `Granted ${path} to "fern" (read-write).\n`,
      stderr: '',
    });
    expect(owned(path)).toEqual([0o2775, 0, group]);
    expect(owned(join(path, 'src'))).toEqual([0o2770, 0, group]);
    expect(owned(join(path, 'src', 'page.html'))).toEqual([0o660, 0, group]);
    // The chown cleared setuid (the kernel does), and it is not put back.
    expect(owned(join(path, 'build.sh'))).toEqual([0o775, uid, group]);
    expect(owned(outside)).toEqual([0o600, 0, 0]);
    expect(lstatSync(join(path, 'link-out')).gid).toBe(0);
  });

  test('--fix-owner of a read-only grant adds r and r-x only', async () => {
    await user('otto');
    const path = directory('archive', 0o700);
    writeFileSync(join(path, 'report.txt'), 'report\n');
    chmodSync(join(path, 'report.txt'), 0o600);
    writeFileSync(join(path, 'run'), 'run\n');
    chmodSync(join(path, 'run'), 0o700);
    const fixed = await mango(['workspace', 'grant', 'otto', path, '--read-only', '--fix-owner']);
    const group = (await ids().find('grant', path))!;
    expect(fixed).toEqual({
      code: 0,
      stdout:
        `Gave ${path} to group ${group}: 1 directory and 2 files (group r-x on directories, r on files, x on files only where the owner has it; setgid on directories; owners unchanged).\n` +
        `Granted ${path} to "otto" (read-only).\n`,
      stderr: '',
    });
    expect(owned(path)).toEqual([0o2750, 0, group]);
    expect(owned(join(path, 'report.txt'))).toEqual([0o640, 0, group]);
    expect(owned(join(path, 'run'))).toEqual([0o750, 0, group]);
  });

  test('each granted directory gets one group for good, whoever it is granted to', async () => {
    await user('gina');
    await user('gus');
    const path = directory('common', 0o777);
    expect((await mango(['workspace', 'grant', 'gina', path])).code).toBe(0);
    const group = (await ids().find('grant', path))!;
    expect((await mango(['workspace', 'grant', 'gus', path])).code).toBe(0);
    expect(await ids().find('grant', path)).toBe(group);
    const rows = (await ids().list()).filter((row) => row.kind === 'grant' && row.owner === path);
    expect(rows.map((row) => row.id)).toEqual([group]);
  });

  test('grant-existing refuses a directory the user’s uid cannot reach, with the same message', async () => {
    const { id, uid } = await user('cleo');
    const path = directory('bound', 0o755);
    const chats = new DatabaseChatRepository(handle.database);
    await chats.createChat(
      testChat('cleo-chat', '2026-01-01T00:00:00.000Z', { userId: id, workingDirectory: path }),
    );
    const applied = await mango(['workspace', 'grant-existing']);
    const group = (await ids().find('grant', path))!;
    expect(applied.stdout).toContain(
      `refused: "cleo" Cannot grant ${path}: the user's commands run as uid ${uid} (gid ${uid}, groups ${BASE}, ${group}) ` +
        `and cannot read, write and enter ${path} (mode 0755, owner 0:0; the others' bits apply), which a read-write grant needs (rwx).`,
    );
    expect(await new DatabaseWorkspaceRepository(handle.database).listGrants(id)).toEqual([]);
    expect(statSync(path).gid).toBe(0);
  });
});
