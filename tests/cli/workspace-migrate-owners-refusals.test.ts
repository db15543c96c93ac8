/**
 * `mango workspace migrate-owners` when it cannot do its work: a tree it cannot migrate is named and
 * the exit code is 1 (the others are still migrated), a range that holds the uid of earlier versions
 * or a caller that is not root is refused before anything changes, usage mistakes exit 2, and an
 * installation with nothing to migrate says so. Real databases (both backends) and directories; needs
 * root (it sets owners).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, lchownSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { capturedIo } from '../helpers/captured-io.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';

const LEGACY = 61000;
const ROOT = resolve(import.meta.dir, '..', '..');
const asRoot = process.getuid?.() === 0;

describe.skipIf(!asRoot).each(BACKENDS)('mango workspace migrate-owners refusals on %s', (backend) => {
  let handle: TestDatabase;
  let temp: { path: string; remove: () => void };
  let env: Record<string, string>;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    temp = makeTempDirectory('mango-migrate-refusals-');
    env = {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      ...(handle.config.databaseUrl === undefined ? {} : { DATABASE_URL: handle.config.databaseUrl }),
    };
  }, 60_000); // the run's first PostgreSQL database may start the cluster

  afterAll(async () => {
    await handle.dispose();
    temp.remove();
  }, 30_000);

  async function run(argv: string[], extra: Record<string, string> = {}) {
    const { io, written } = capturedIo(temp.path, { ...env, ...extra });
    const code = await runCli(['workspace', 'migrate-owners', ...argv], io);
    return { code, ...written };
  }

  test('with no workspace, grant or MCP state directory there is nothing to migrate', async () => {
    await new DatabaseUserRepository(handle.database).create('nobody-yet');
    expect(await run([])).toEqual({
      code: 0,
      stdout: 'No workspace, granted directory or MCP state directory to migrate.\n',
      stderr: '',
    });
  });

  test('usage mistakes exit 2 with the usage hint', async () => {
    expect(await run(['extra'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'mango: Unexpected arguments: extra. See "mango workspace --help".\n',
    });
    expect((await run(['--bogus'])).code).toBe(2);
  });

  test('a range holding the uid of earlier versions is refused before any id is given', async () => {
    expect(await run([], { MANGO_SANDBOX_UID: '1900000005' })).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'mango: migrate-owners cannot give out ids: the sandbox range 1900000000–1900065535 (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT) holds ids the host already uses: MANGO_SANDBOX_UID gives id 1900000005 to "the uid of earlier versions". Move the range so that no host account shares an id with a tenant.\n',
    });
    expect(await new DatabaseSandboxIdRepository(handle.database).list()).toEqual([]);
  });

  test('a real run as another uid than root is refused; a dry run is not', async () => {
    const asNobody = (argv: string[]) => {
      const child = Bun.spawnSync(
        [
          'setpriv',
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          '--',
          process.execPath,
          join(ROOT, 'src/cli/main.ts'),
          'workspace',
          'migrate-owners',
          ...argv,
        ],
        { cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...env } },
      );
      return { code: child.exitCode, stderr: child.stderr.toString() };
    };
    expect(asNobody([])).toEqual({
      code: 1,
      stderr:
        'mango: migrate-owners gives files to other uids, which only root may do (this runs as uid 65534); run it as root (with --dry-run first to see what it would change).\n',
    });
    // Past the check, a dry run goes on to open the database, in a data directory that is root's alone.
    expect(asNobody(['--dry-run'])).toEqual({
      code: 2,
      stderr: `mango: The data directory ${handle.config.dataDirectory} (MANGO_DATA_DIR) cannot be made the server's own (mode 0700): EACCES: permission denied, openat2 "${handle.config.dataDirectory}"\n`,
    });
  });

  test('a workspace that cannot be migrated is named, exit 1, the others are migrated, a removed grant is noted', async () => {
    const users = new DatabaseUserRepository(handle.database);
    const dee = (await users.create('dee')).user;
    const eve = (await users.create('eve')).user;
    // Outside every workspace: dee's workspace was replaced by a link to it.
    const host = join(temp.path, 'host');
    mkdirSync(host);
    writeFileSync(join(host, 'file'), 'host\n');
    lchownSync(host, LEGACY, LEGACY);
    lchownSync(join(host, 'file'), LEGACY, LEGACY);
    const deeHome = join(handle.config.workspacesDirectory, dee.id);
    symlinkSync(host, deeHome);
    const eveHome = join(handle.config.workspacesDirectory, eve.id);
    mkdirSync(eveHome);
    lchownSync(eveHome, LEGACY, LEGACY);
    chmodSync(eveHome, 0o755);
    // Granted once, removed since.
    const gone = join(temp.path, 'gone');
    await new DatabaseWorkspaceRepository(handle.database).putGrant({
      userId: eve.id,
      path: gone,
      readOnly: false,
      createdAt: '2026-11-01T00:00:00.000Z',
    });
    const result = await run([]);
    const eveUid = (await new DatabaseSandboxIdRepository(handle.database).find('user', eve.id))!;
    expect(result).toEqual({
      code: 1,
      stdout:
        `workspace of "eve" ${eveHome} (uid ${eveUid}): 1 re-owned, 0 setuid cleared, 0 hard links left\n` +
        `grant ${gone} to "eve": the directory is gone, nothing to migrate\n` +
        'Migrated 1 tree: 1 entry re-owned, setuid or setgid cleared on 0 files, 0 hard links left. 1 tree could not be migrated (the errors above name them); run the command again once each is fixed.\n',
      stderr: `mango: workspace of "dee" ${deeHome}: ${deeHome} is not a directory reached without links (ELOOP): links are never followed, so nothing of it was changed.\n`,
    });
    const stats = lstatSync(eveHome);
    expect([stats.uid, stats.gid, stats.mode & 0o7777]).toEqual([eveUid, eveUid, 0o700]);
    for (const path of [host, join(host, 'file')]) expect(lstatSync(path).uid).toBe(LEGACY);
  });
  test('ids given out before the range was moved are refused, naming the variables', async () => {
    const users = new DatabaseUserRepository(handle.database);
    const ids = new DatabaseSandboxIdRepository(handle.database);
    const [dee, eve] = [(await users.findByName('dee'))!, (await users.findByName('eve'))!];
    const outside = (user: typeof dee, id: number | undefined) =>
      `mango: workspace of "${user.name}" ${join(handle.config.workspacesDirectory, user.id)}: The user ${user.id} has id ${id}, outside the sandbox range 2000000000–2000065535 (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT): set the range back so that it holds the ids already given out.\n`;
    expect(await run([], { MANGO_SANDBOX_UID_BASE: '2000000000' })).toEqual({
      code: 1,
      stdout:
        `grant ${join(temp.path, 'gone')} to "eve": the directory is gone, nothing to migrate\n` +
        '2 trees could not be migrated (the errors above name them); run the command again once each is fixed.\n',
      stderr: outside(dee, await ids.find('user', dee.id)) + outside(eve, await ids.find('user', eve.id)),
    });
  });
});
