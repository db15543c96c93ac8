/**
 * `mango workspace migrate-owners`, in process against a real database (both backends) and a data and
 * workspaces directory laid out as the versions before per-user uids left them: users made through the
 * database, personal workspaces and a granted directory of uid 61000, files the server wrote as root,
 * a setuid copy of /bin/true, hard links (between two tenants' workspaces, and of a host file), and
 * symlinks planted towards host files and a host directory. Afterwards every entry has exactly the
 * owner and mode the rules give it, the hosts' files are as they were, a dry run changed nothing and
 * printed the same lines, a second run has nothing to change, and a server started on the tree counts
 * the workspaces still to migrate. A user's shell (a real `mango tool call bash` process) is refused
 * in her workspace before and runs there as her own uid afterwards. Needs root (it sets owners).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  copyFileSync,
  lchownSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../src/db/database-workspace-repository.ts';
import { hostShellSandbox, installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createUnavailableShellSandbox } from '../../src/sandbox/shell-sandbox-config.ts';
import { countUnmigratedWorkspaces } from '../../src/sandbox/unmigrated-roots.ts';
import { startServer } from '../../src/server/start-server.ts';
import type { User } from '../../src/users/user-repository.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { createTestSandbox } from '../sandbox/sandbox-host.ts';

const LEGACY = 61000;
const BASE = 1_900_000_000;
const [ANA, BO, PROJECT, SHARED, TEAM] = [BASE + 1, BASE + 2, BASE + 3, BASE + 4, BASE + 5];
const asRoot = process.getuid?.() === 0;
const ROOT = resolve(import.meta.dir, '..', '..');

/** Shell tests run where the sandbox can, and fail (rather than skip) where it is required. */
const shellTest = (() => {
  const probe = createTestSandbox();
  const available = probe.status().available;
  probe.dispose();
  return available || process.env.MANGO_REQUIRE_SANDBOX === '1' ? test : test.skip;
})();

/** Every entry below `root` (`.` for itself) as `uid:gid mode`, links not followed. */
function owners(root: string): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (path: string) => {
    const stats = lstatSync(path);
    found[relative(root, path) || '.'] = `${stats.uid}:${stats.gid} ${(stats.mode & 0o7777).toString(8)}`;
    if (stats.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
  };
  visit(root);
  return found;
}

/** Makes `path` (a directory when `mode` says so through `kind`) owned by `uid`:`gid` with `mode`. */
function own(path: string, uid: number, mode: number, gid = uid): void {
  lchownSync(path, uid, gid);
  // chown cleared any setuid bit; the mode goes on after it.
  chmodSync(path, mode);
}

function file(path: string, uid: number, mode: number, text = 'text\n'): void {
  writeFileSync(path, text);
  own(path, uid, mode);
}

function directory(path: string, uid: number, mode: number): void {
  mkdirSync(path);
  own(path, uid, mode);
}

function link(target: string, path: string, uid: number): void {
  symlinkSync(target, path);
  lchownSync(path, uid, uid);
}

describe.skipIf(!asRoot).each(BACKENDS)('mango workspace migrate-owners on %s', (backend) => {
  let handle: TestDatabase;
  let work: string;
  let host: string;
  let workspaces: string;
  let data: string;
  let ana: User;
  let bo: User;
  let anaHome: string;
  let boHome: string;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    work = realpathSync(mkdtempSync(join(tmpdir(), 'mango-migrate-owners-')));
    chmodSync(work, 0o755);
    workspaces = realpathSync(handle.config.workspacesDirectory);
    data = realpathSync(handle.config.dataDirectory);
    const users = new DatabaseUserRepository(handle.database);
    ana = (await users.create('ana')).user;
    bo = (await users.create('bo')).user;
    await users.create('cy'); // no workspace, no state, no grant: nothing of cy's is touched

    // The host's files the planted links and hard links point at: root's, and must stay so.
    host = join(work, 'host');
    directory(host, 0, 0o755);
    file(join(host, 'passwd'), 0, 0o644, 'root:x:0:0:root:/root:/bin/bash\n');
    file(join(host, 'sentinel'), 0, 0o4755, 'sentinel\n');
    file(join(host, 'hosts'), 0, 0o644, '127.0.0.1 localhost\n');
    directory(join(host, 'dir'), 0, 0o755);
    file(join(host, 'dir', 'inside'), 0, 0o600);
    file(join(host, 'dir', 'legacy'), LEGACY, 0o4755);

    // Personal workspaces as the server of earlier versions made them: 0700, uid and gid 61000.
    anaHome = join(workspaces, ana.id);
    boHome = join(workspaces, bo.id);
    directory(anaHome, LEGACY, 0o700);
    directory(join(anaHome, 'notes'), LEGACY, 0o755);
    file(join(anaHome, 'notes', 'todo.txt'), LEGACY, 0o644);
    directory(join(anaHome, 'notes', 'deep'), LEGACY, 0o700);
    file(join(anaHome, 'notes', 'deep', 'file.txt'), LEGACY, 0o600);
    file(join(anaHome, 'upload.bin'), 0, 0o644); // written by the server as root
    copyFileSync('/bin/true', join(anaHome, 'suid-true'));
    own(join(anaHome, 'suid-true'), LEGACY, 0o4755);
    file(join(anaHome, 'foreign.txt'), 1234, 0o644);
    Bun.spawnSync(['mkfifo', join(anaHome, 'pipe')]);
    own(join(anaHome, 'pipe'), LEGACY, 0o644);
    link(join(host, 'passwd'), join(anaHome, 'link-passwd'), LEGACY);
    link(join(host, 'sentinel'), join(anaHome, 'link-sentinel'), 0);
    link(join(host, 'dir'), join(anaHome, 'link-dir'), LEGACY);
    link(`../${bo.id}`, join(anaHome, 'link-bo'), LEGACY);

    directory(boHome, LEGACY, 0o755);
    file(join(boHome, 'readme.md'), LEGACY, 0o644);
    file(join(boHome, 'bo-secret.txt'), LEGACY, 0o600, 'bo only\n');
    // Linked into ana's workspace while both ran as 61000: one file, two tenants' names.
    linkSync(join(boHome, 'bo-secret.txt'), join(anaHome, 'shared.txt'));
    copyFileSync('/bin/true', join(boHome, 'tool'));
    own(join(boHome, 'tool'), LEGACY, 0o4755);
    linkSync(join(boHome, 'tool'), join(boHome, 'tool-copy'));
    linkSync(join(host, 'hosts'), join(boHome, 'hosts-link'));

    // Stdio MCP servers' state, in both places it has lived.
    mkdirSync(join(data, 'mcp-state', ana.id), { recursive: true, mode: 0o711 });
    directory(join(data, 'mcp-state', ana.id, 'notes'), LEGACY, 0o700);
    file(join(data, 'mcp-state', ana.id, 'notes', 'memory.json'), LEGACY, 0o600);
    file(join(data, 'mcp-state', ana.id, 'notes', 'root-log'), 0, 0o644);
    mkdirSync(join(workspaces, '.mcp-state', bo.id), { recursive: true, mode: 0o711 });
    directory(join(workspaces, '.mcp-state', bo.id, 'memory'), LEGACY, 0o700);
    file(join(workspaces, '.mcp-state', bo.id, 'memory', 'state.json'), LEGACY, 0o644);

    // Granted directories, chowned to 61000 by the operator: ana's alone, one shared, one inside it.
    const project = join(work, 'project');
    directory(project, LEGACY, 0o755);
    directory(join(project, 'src'), LEGACY, 0o755);
    file(join(project, 'src', 'main.c'), LEGACY, 0o644);
    file(join(project, 'build.sh'), LEGACY, 0o750);
    file(join(project, 'setuid-helper'), LEGACY, 0o4755);
    file(join(project, 'root-made.txt'), 0, 0o644);
    file(join(project, 'other.txt'), 1234, 0o600);
    link(join(host, 'dir'), join(project, 'link-out'), LEGACY);
    const shared = join(work, 'shared');
    directory(shared, LEGACY, 0o750);
    file(join(shared, 'notes.txt'), LEGACY, 0o640);
    directory(join(shared, 'team'), LEGACY, 0o700);
    file(join(shared, 'team', 'plan.txt'), LEGACY, 0o600);
    const grants = new DatabaseWorkspaceRepository(handle.database);
    const grant = (userId: string, path: string) =>
      grants.putGrant({ userId, path, readOnly: false, createdAt: '2026-11-01T00:00:00.000Z' });
    await grant(ana.id, project);
    await grant(ana.id, shared);
    await grant(bo.id, shared);
    await grant(bo.id, join(shared, 'team'));
  }, 60_000); // the run's first PostgreSQL database may start the cluster

  afterAll(async () => {
    await handle.dispose();
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  async function run(argv: string[]) {
    return runCliCaptured(argv, work, {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      DATABASE_URL: handle.config.databaseUrl,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
    });
  }

  /** `mango tool call bash` as `user`, in a process of its own (its sandbox pool ends with it). */
  async function bashAs(
    user: string,
    command: string,
    cwd?: string,
  ): Promise<{ code: number; output: unknown }> {
    const child = Bun.spawn(
      [
        process.execPath,
        join(ROOT, 'src/cli/main.ts'),
        'tool',
        'call',
        'bash',
        JSON.stringify({ command }),
        '--enable',
        '--user',
        user,
        ...(cwd === undefined ? [] : ['--cwd', cwd]),
      ],
      {
        cwd: work,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: work,
          MANGO_DATA_DIR: handle.config.dataDirectory,
          MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
          ...(handle.config.databaseUrl === undefined ? {} : { DATABASE_URL: handle.config.databaseUrl }),
        },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      },
    );
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    const result = JSON.parse(stdout) as {
      ok: boolean;
      result?: { stdout: string; exitCode: number };
      error?: { message: string };
    };
    return {
      code,
      output: result.ok ? { stdout: result.result?.stdout, exitCode: result.result?.exitCode } : result.error,
    };
  }

  /** Owners and modes of everything the command may touch, and of the host's files. */
  function everything() {
    return {
      workspaces: owners(workspaces),
      data: owners(join(data, 'mcp-state')),
      project: owners(join(work, 'project')),
      shared: owners(join(work, 'shared')),
      host: owners(host),
    };
  }

  const hostAfter = {
    '.': '0:0 755',
    dir: '0:0 755',
    'dir/inside': '0:0 600',
    'dir/legacy': `${LEGACY}:${LEGACY} 4755`,
    hosts: '0:0 644',
    passwd: '0:0 644',
    sentinel: '0:0 4755',
  };

  function expectedOutput(mode: 'dry' | 'real'): string {
    const id = (value: number) => (mode === 'dry' ? 'new' : String(value));
    return [
      ...(mode === 'dry' ? ['Dry run: nothing is changed; a real run makes the changes below.'] : []),
      `workspace of "ana" ${anaHome} (uid ${id(ANA)}): 12 re-owned, 1 setuid cleared, 1 hard link left`,
      `  hard link left: ${join(anaHome, 'shared.txt')} (2 links)`,
      `MCP state of "ana" ${join(data, 'mcp-state', ana.id, 'notes')} (uid ${id(ANA)}): 3 re-owned, 0 setuid cleared, 0 hard links left`,
      `workspace of "bo" ${boHome} (uid ${id(BO)}): 2 re-owned, 1 setuid cleared, 4 hard links left`,
      `  hard link left: ${join(boHome, 'bo-secret.txt')} (2 links)`,
      `  hard link left: ${join(boHome, 'hosts-link')} (2 links)`,
      `  hard link left: ${join(boHome, 'tool')} (2 links)`,
      `  hard link left: ${join(boHome, 'tool-copy')} (2 links)`,
      `MCP state of "bo" ${join(workspaces, '.mcp-state', bo.id, 'memory')} (uid ${id(BO)}): 2 re-owned, 0 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'project')} to "ana" (uid ${id(ANA)}, group ${id(PROJECT)}): 6 re-owned, 1 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'shared')} to "ana", "bo" (uid 0, group ${id(SHARED)}): 2 re-owned, 0 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'shared', 'team')} to "bo" (uid ${id(BO)}, group ${id(TEAM)}): 2 re-owned, 0 setuid cleared, 0 hard links left`,
      mode === 'dry'
        ? 'Dry run over 7 trees: a real run would re-own 29 entries, clear setuid or setgid on 3 files and leave 5 hard links. ' +
          'Each hard link left may be another user\'s file too: resolve it (see "Upgrading to per-user uids" in docs/operating.md), then run the command again.'
        : 'Migrated 7 trees: 29 entries re-owned, setuid or setgid cleared on 3 files, 5 hard links left. ' +
          'Each hard link left may be another user\'s file too: resolve it (see "Upgrading to per-user uids" in docs/operating.md), then run the command again.',
      '',
    ].join('\n');
  }

  test('a server started on the old layout counts its unmigrated workspaces', async () => {
    const grantPaths = [join(work, 'project'), join(work, 'shared'), join(work, 'shared', 'team')];
    expect(countUnmigratedWorkspaces(workspaces, grantPaths, LEGACY)).toBe(5);
    const previous = hostShellSandbox();
    const printed: string[] = [];
    const server = await startServer(handle.config, {
      print: (line) => printed.push(line),
      env: {},
      shellSandbox: createUnavailableShellSandbox('not probed in this test'),
    });
    await server.stop();
    installShellSandbox(previous);
    expect(printed).toContain(
      '5 workspaces still belong to uid 61000 (MANGO_SANDBOX_UID) from before per-user uids: shell commands there are refused until you run `mango workspace migrate-owners`.',
    );
  });

  shellTest(
    'before the migration a user shell is refused in her workspace, naming the command',
    async () => {
      expect(await bashAs('ana', 'id -u')).toEqual({
        code: 1,
        output: {
          classification: 'execution_error',
          // The command's cwd is resolved in her file worker, which cannot start there either.
          message: `Cannot resolve cwd ${JSON.stringify(anaHome)}: The workspace ${anaHome} still belongs to uid 61000 (MANGO_SANDBOX_UID), the one uid every user's commands ran as before each user had their own: commands cannot run there until an operator runs \`mango workspace migrate-owners\`.`,
        },
      });
    },
    30_000,
  );

  test('--dry-run changes nothing and prints what a real run then does', async () => {
    const before = everything();
    const dry = await run(['workspace', 'migrate-owners', '--dry-run']);
    expect(dry).toEqual({ code: 0, stdout: expectedOutput('dry'), stderr: '' });
    expect(everything()).toEqual(before);
    expect(await new DatabaseSandboxIdRepository(handle.database).list()).toEqual([]);

    const real = await run(['workspace', 'migrate-owners']);
    expect(real).toEqual({ code: 0, stdout: expectedOutput('real'), stderr: '' });
    const ids = await new DatabaseSandboxIdRepository(handle.database).list();
    expect(ids.map((row) => [row.id, row.kind, row.owner])).toEqual([
      [ANA, 'user', ana.id],
      [BO, 'user', bo.id],
      [PROJECT, 'grant', join(work, 'project')],
      [SHARED, 'grant', join(work, 'shared')],
      [TEAM, 'grant', join(work, 'shared', 'team')],
    ]);
  });

  test('every entry has the owner and mode its rule gives, and the host files are untouched', () => {
    const after = everything();
    const a = `${ANA}:${ANA}`;
    const b = `${BO}:${BO}`;
    const legacy = `${LEGACY}:${LEGACY}`;
    expect(after.host).toEqual(hostAfter);
    expect(after.workspaces).toEqual({
      '.': after.workspaces['.']!, // the workspaces directory is the server's to set at its start
      '.instances': '0:0 700', // where a running server keeps its marker (empty once it stopped)
      '.mcp-state': after.workspaces['.mcp-state']!,
      [`.mcp-state/${bo.id}`]: after.workspaces[`.mcp-state/${bo.id}`]!,
      [`.mcp-state/${bo.id}/memory`]: `${b} 700`,
      [`.mcp-state/${bo.id}/memory/state.json`]: `${b} 644`,
      [ana.id]: `${a} 700`,
      [`${ana.id}/foreign.txt`]: '1234:1234 644',
      [`${ana.id}/link-bo`]: `${a} 777`,
      [`${ana.id}/link-dir`]: `${a} 777`,
      [`${ana.id}/link-passwd`]: `${a} 777`,
      [`${ana.id}/link-sentinel`]: `${a} 777`,
      [`${ana.id}/notes`]: `${a} 755`,
      [`${ana.id}/notes/deep`]: `${a} 700`,
      [`${ana.id}/notes/deep/file.txt`]: `${a} 600`,
      [`${ana.id}/notes/todo.txt`]: `${a} 644`,
      [`${ana.id}/pipe`]: `${a} 644`,
      [`${ana.id}/shared.txt`]: `${legacy} 600`,
      [`${ana.id}/suid-true`]: `${a} 755`,
      [`${ana.id}/upload.bin`]: `${a} 644`,
      [bo.id]: `${b} 700`,
      [`${bo.id}/bo-secret.txt`]: `${legacy} 600`,
      [`${bo.id}/hosts-link`]: '0:0 644',
      [`${bo.id}/readme.md`]: `${b} 644`,
      [`${bo.id}/tool`]: `${legacy} 755`,
      [`${bo.id}/tool-copy`]: `${legacy} 755`,
    });
    expect(after.workspaces['.mcp-state']).toBe('0:0 711');
    expect(after.data).toEqual({
      '.': '0:0 711',
      [ana.id]: '0:0 711',
      [`${ana.id}/notes`]: `${a} 700`,
      [`${ana.id}/notes/memory.json`]: `${a} 600`,
      [`${ana.id}/notes/root-log`]: `${a} 644`,
    });
    expect(after.project).toEqual({
      '.': `${ANA}:${PROJECT} 2775`,
      'build.sh': `${ANA}:${PROJECT} 770`,
      'link-out': `${ANA}:${PROJECT} 777`,
      'other.txt': '1234:1234 600',
      'root-made.txt': '0:0 644',
      'setuid-helper': `${ANA}:${PROJECT} 775`,
      src: `${ANA}:${PROJECT} 2775`,
      'src/main.c': `${ANA}:${PROJECT} 664`,
    });
    expect(after.shared).toEqual({
      '.': `0:${SHARED} 2770`,
      'notes.txt': `0:${SHARED} 660`,
      team: `${BO}:${TEAM} 2770`,
      'team/plan.txt': `${BO}:${TEAM} 660`,
    });
  });

  shellTest(
    'afterwards her shell runs as her uid and changes what uid 61000 owned',
    async () => {
      expect(await bashAs('ana', 'id -u; echo more >> notes/todo.txt; cat notes/todo.txt')).toEqual({
        code: 0,
        output: { stdout: `${ANA}\ntext\nmore\n`, exitCode: 0 },
      });
      // A new entry of her grant takes the grant's group from its setgid directory.
      expect(await bashAs('ana', 'touch src/new.c', join(work, 'project'))).toEqual({
        code: 0,
        output: { stdout: '', exitCode: 0 },
      });
      // 664: sandboxed commands run with umask 002 (sandbox-waiter.pl).
      expect(owners(join(work, 'project', 'src'))['new.c']).toBe(`${ANA}:${PROJECT} 664`);
    },
    30_000,
  );

  test('a second run has nothing to change and still lists the hard links', async () => {
    const before = everything();
    const again = await run(['workspace', 'migrate-owners', '--verbose']);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe('');
    const out = again.stdout.split('\n');
    expect(out.filter((line) => line.includes(' re-owned, '))).toEqual([
      `workspace of "ana" ${anaHome} (uid ${ANA}): 0 re-owned, 0 setuid cleared, 1 hard link left`,
      `MCP state of "ana" ${join(data, 'mcp-state', ana.id, 'notes')} (uid ${ANA}): 0 re-owned, 0 setuid cleared, 0 hard links left`,
      `workspace of "bo" ${boHome} (uid ${BO}): 0 re-owned, 0 setuid cleared, 4 hard links left`,
      `MCP state of "bo" ${join(workspaces, '.mcp-state', bo.id, 'memory')} (uid ${BO}): 0 re-owned, 0 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'project')} to "ana" (uid ${ANA}, group ${PROJECT}): 0 re-owned, 0 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'shared')} to "ana", "bo" (uid 0, group ${SHARED}): 0 re-owned, 0 setuid cleared, 0 hard links left`,
      `grant ${join(work, 'shared', 'team')} to "bo" (uid ${BO}, group ${TEAM}): 0 re-owned, 0 setuid cleared, 0 hard links left`,
    ]);
    expect(out.filter((line) => line.startsWith('  ') && !line.startsWith('  hard link left: '))).toEqual([]);
    expect(out.at(-2)).toBe(
      'Nothing to change in 7 trees; 5 hard links left. Each hard link left may be another user\'s file too: resolve it (see "Upgrading to per-user uids" in docs/operating.md), then run the command again.',
    );
    expect(everything()).toEqual(before);
    expect(countUnmigratedWorkspaces(workspaces, [join(work, 'project'), join(work, 'shared')], LEGACY)).toBe(
      0,
    );
  });
});
