/**
 * The CLI's commands that act for a user do their file tools' work in that user's file worker, as her
 * uid, on both databases: `mango tool call --user` and `mango tool replay --user` write files her uid
 * owns and are refused a directory only root may enter (root, doing the work itself, would read it);
 * `mango mcp --user`, as a real process, reads through a worker that is a Bun process of its own below
 * the command, running as her uid, and gone once the session ends. Operator mode keeps its file work in
 * the command's process (as root, it reads what only root may enter) and says nothing of workers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { FILE_WORKER_DIRECTORY } from '../../src/sandbox/file-worker-sandbox.ts';
import { sha256Hex } from '../../src/tools/fs/freshness.ts';
import { descendantsOf } from '../file-worker/file-worker-server-process.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const WORKERS =
  "File tools work in each user's sandbox: a file worker per user and reachable set, as the user's uid, seeing only what the call may reach.";
const ROOT_ONLY_REFUSAL =
  'Cannot resolve path "rootonly/secret.txt": the operating system denied access to a directory on the way (EACCES).';

/** The file workers below `pid`: Bun processes started on the worker's program, with their uids. */
function workersBelow(pid: number): { pid: number; uid: number }[] {
  return descendantsOf(pid).flatMap((candidate) => {
    try {
      // The launcher (PID 1 of the sandbox) names the program too; the worker's line starts with Bun.
      if (!readFileSync(`/proc/${candidate}/cmdline`, 'utf8').startsWith(`${FILE_WORKER_DIRECTORY}/bun\0`))
        return [];
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${candidate}/status`, 'utf8'))?.[1];
      return [{ pid: candidate, uid: Number(uid) }];
    } catch {
      return [];
    }
  });
}

describeSandbox("the CLI's file tools in the user's file worker", () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let handle: TestDatabase;
    let home = '';
    let uid = 0;

    const env = (): Record<string, string> => ({
      MANGO_DATA_DIR: handle.config.dataDirectory,
      ...(handle.config.databaseUrl === undefined ? {} : { DATABASE_URL: handle.config.databaseUrl }),
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
    });
    async function run(argv: string[]) {
      return runCliCaptured(argv, handle.config.dataDirectory, env());
    }

    beforeAll(async () => {
      handle = await createTestDatabase(backend);
      const wren = await new DatabaseUserRepository(handle.database).create('wren');
      // A command that needs her workspace makes it.
      expect((await run(['tool', 'call', 'list_directory', '{"path":"."}', '--user', 'wren'])).code).toBe(0);
      home = join(handle.config.workspacesDirectory, wren.user.id);
      uid = (await new DatabaseSandboxIdRepository(handle.database).find('user', wren.user.id)) ?? 0;
      expect(uid).toBeGreaterThan(0);
      // Root may enter it, her uid may not: only work done as her is refused there.
      mkdirSync(join(home, 'rootonly'), { mode: 0o700 });
      writeFileSync(join(home, 'rootonly', 'secret.txt'), 'root only\n');
    }, 30_000);
    afterAll(() => handle.dispose());

    test('tool call --user writes as her uid and is refused what only root may enter', async () => {
      const written = await run([
        'tool',
        'call',
        'write_file',
        '{"path":"made/by-cli.txt","content":"hi\\n"}',
        '--user',
        'wren',
      ]);
      expect(written.stderr).toBe(`mango tool: ${WORKERS}\n`);
      expect(JSON.parse(written.stdout)).toEqual({
        ok: true,
        result: { path: 'made/by-cli.txt', bytesWritten: 3, created: true, sha256: sha256Hex('hi\n') },
      });
      expect(written.code).toBe(0);
      for (const path of ['made', 'made/by-cli.txt'])
        expect([path, statSync(join(home, path)).uid]).toEqual([path, uid]);
      const refused = await run([
        'tool',
        'call',
        'read_file',
        '{"path":"rootonly/secret.txt"}',
        '--user',
        'wren',
      ]);
      expect(JSON.parse(refused.stdout)).toEqual({
        ok: false,
        error: { classification: 'permission_denied', message: ROOT_ONLY_REFUSAL },
      });
      expect(refused.code).toBe(1);
    });

    test('tool replay --user reads through her worker', async () => {
      const calls = join(handle.config.dataDirectory, 'calls.jsonl');
      writeFileSync(
        calls,
        [
          { name: 'read_file', args: { path: 'made/by-cli.txt' } },
          { name: 'read_file', args: { path: 'rootonly/secret.txt' } },
        ]
          .map((call) => JSON.stringify(call))
          .join('\n'),
      );
      const replayed = await run(['tool', 'replay', calls, '--user', 'wren']);
      expect(replayed.stderr).toBe(`mango tool: ${WORKERS}\n`);
      const [read, refused] = replayed.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(read).toMatchObject({ ok: true, result: { content: '     1\thi', path: 'made/by-cli.txt' } });
      expect(refused).toEqual({
        ok: false,
        error: { classification: 'permission_denied', message: ROOT_ONLY_REFUSAL },
      });
    });

    test('operator mode does its file work in the command, as root, and says nothing of workers', async () => {
      const elsewhere = makeTempDirectory('mango-cli-operator-');
      try {
        mkdirSync(join(elsewhere.path, 'rootonly'), { mode: 0o700 });
        writeFileSync(join(elsewhere.path, 'rootonly', 'secret.txt'), 'root only\n');
        const read = await run([
          'tool',
          'call',
          'read_file',
          JSON.stringify({ path: join(elsewhere.path, 'rootonly', 'secret.txt') }),
        ]);
        expect(JSON.parse(read.stdout)).toMatchObject({ ok: true, result: { content: '     1\troot only' } });
        expect(read.stderr).toBe('');
      } finally {
        elsewhere.remove();
      }
    });

    test('mcp --user reads through a worker that runs as her uid below the command, gone when it ends', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'src/cli/main.ts'), 'mcp', '--user', 'wren'],
        cwd: handle.config.dataDirectory,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: handle.config.dataDirectory, ...env() },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
      });
      const client = new Client({ name: 'test', version: '1' });
      await client.connect(transport);
      const command = transport.pid as number;
      try {
        const read = await client.callTool({ name: 'read_file', arguments: { path: 'made/by-cli.txt' } });
        expect(callResultData(read)).toMatchObject({ content: '     1\thi', path: 'made/by-cli.txt' });
        expect(workersBelow(command).map((worker) => worker.uid)).toEqual([uid]);
        const refused = await client.callTool({
          name: 'read_file',
          arguments: { path: 'rootonly/secret.txt' },
        });
        expect(refused.isError).toBe(true);
        expect(JSON.parse((refused.content as { text: string }[])[0]?.text ?? '')).toEqual({
          error: { classification: 'permission_denied', message: ROOT_ONLY_REFUSAL },
        });
      } finally {
        await client.close();
      }
      expect(await waitUntil(() => workersBelow(command).length === 0, 5000)).toBe(true);
      expect(stderr).toContain(`mango mcp: ${WORKERS}\n`);
      expect(readdirSync(home).sort()).toEqual(['made', 'rootonly']);
    }, 30_000);
  });
});
