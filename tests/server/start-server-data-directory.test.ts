/**
 * The data directory is the server's own from its start: `startServer` on a data directory an older
 * version left (0755, a 0644 `mango.db` that SQLite made under umask 022) leaves it 0700 and SQLite's
 * three files 0600 while it runs, on either database; an image made through generate_image lies in a
 * 0700 directory as a 0600 file. On the host, a real process of another account (`nobody`, through
 * `setpriv`) could read the database and list the directory before the start and can do neither after,
 * nor reach the images.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { resetImageGenerationConfiguration } from '../../src/images/image-generation-config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { makeOlderDataDirectory } from '../helpers/older-data-directory.ts';
import { type ReplayImageServer, startReplayImageServer } from '../helpers/replay-image-server.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

function modeOf(path: string): string {
  return existsSync(path) ? (statSync(path).mode & 0o7777).toString(8) : '-';
}

/** `argv` run as the host account nobody (uid and gid 65534, no groups): its exit code and stderr. */
function asNobody(argv: string[]): { exitCode: number; stderr: string } {
  const run = Bun.spawnSync(
    ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', ...argv],
    { env: { ...process.env, LC_ALL: 'C' }, stdout: 'ignore', stderr: 'pipe' },
  );
  return { exitCode: run.exitCode ?? -1, stderr: run.stderr.toString() };
}

describe.each(BACKENDS)('startServer on %s and the data directory', (backend) => {
  let base: string | undefined;
  let handle: TestDatabase | undefined;
  let server: RunningServer | undefined;
  let replay: ReplayImageServer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.stop();
    await replay?.stop();
    await handle?.dispose();
    if (base !== undefined) rmSync(base, { recursive: true, force: true });
    resetImageGenerationConfiguration();
    [base, handle, server, replay, client] = [undefined, undefined, undefined, undefined, undefined];
  });

  /** Starts the server on an older version's data directory, below a directory anyone may pass. */
  async function startOnOlderDirectory(): Promise<{ data: string; running: RunningServer }> {
    base ??= mkdtempSync(join(tmpdir(), 'mango-server-data-'));
    chmodSync(base, 0o755);
    const data = makeOlderDataDirectory(base, { database: backend === 'sqlite' });
    handle = await createTestDatabase(backend, { migrate: false });
    replay = startReplayImageServer(() => ({ kind: 'image' }));
    server = await startServer(
      { ...handle.config, dataDirectory: data },
      { print: () => {}, env: { OPENAI_BASE_URL: replay.openaiBaseURL } },
    );
    return { data, running: server };
  }

  /** One image made for a new user through the server's generate_image (MCP); its file's path. */
  async function generateImage(running: RunningServer): Promise<string> {
    const { token } = await running.deps.users.create('painter');
    client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    const result = await client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a fox', count: 1 },
    });
    const [image] = callResultData(result).images as { id: string }[];
    const record = await running.deps.images.get(image?.id ?? '');
    if (record === undefined) throw new Error('the image has no record');
    return record.filePath;
  }

  test('an older version’s 0755 directory is 0700 once the server runs; SQLite’s files 0600; an image 0700/0600', async () => {
    const { data, running } = await startOnOlderDirectory();
    const image = await generateImage(running);
    const files = ['mango.db', 'mango.db-wal', 'mango.db-shm'].map((name) => modeOf(join(data, name)));
    expect({
      data: modeOf(data),
      files,
      images: modeOf(join(data, 'images')),
      userImages: modeOf(dirname(image)),
      image: modeOf(image),
    }).toEqual({
      data: '700',
      files: backend === 'sqlite' ? ['600', '600', '600'] : ['-', '-', '-'],
      images: '700',
      userImages: '700',
      image: '600',
    });
    expect(dirname(dirname(image))).toBe(join(data, 'images'));
  });

  test.skipIf(!isRoot)(
    '(root only: setpriv) the host account nobody can read and list it before the start, nothing after',
    async () => {
      base = mkdtempSync(join(tmpdir(), 'mango-server-data-'));
      chmodSync(base, 0o755);
      const before = makeOlderDataDirectory(base, { database: backend === 'sqlite' });
      // The control: what an older version's modes let any account on the host do.
      expect(asNobody(['ls', before]).exitCode).toBe(0);
      if (backend === 'sqlite') expect(asNobody(['cat', join(before, 'mango.db')]).exitCode).toBe(0);
      rmSync(before, { recursive: true });

      const { data, running } = await startOnOlderDirectory();
      const image = await generateImage(running);
      expect(asNobody(['ls', data])).toEqual({
        exitCode: 2,
        stderr: `ls: cannot open directory '${data}': Permission denied\n`,
      });
      expect(asNobody(['ls', join(data, 'images')])).toEqual({
        exitCode: 2,
        stderr: `ls: cannot access '${join(data, 'images')}': Permission denied\n`,
      });
      const files = [image, ...(backend === 'sqlite' ? ['mango.db', 'mango.db-wal', 'mango.db-shm'] : [])];
      for (const file of files) {
        const path = file.startsWith('/') ? file : join(data, file);
        expect(asNobody(['cat', path])).toEqual({ exitCode: 1, stderr: `cat: ${path}: Permission denied\n` });
      }
    },
  );
});
