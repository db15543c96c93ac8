import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { openCliDependencies } from '../../src/cli/cli-dependencies.ts';
import { getTool } from '../../src/tools/registry.ts';
import { killEach, liveProcessesWith, sandboxProcessesIn } from '../helpers/live-processes.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { seedCliDatabase } from '../helpers/seed-cli-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const projectRoot = resolve(import.meta.dir, '../..');
const temporary = await mkdtemp(join(tmpdir(), 'mango-mcp-stdio-'));
// The shell sandbox's uid must be able to reach the working directory (mkdtemp makes it 0700).
await chmod(temporary, 0o755);
const dataDirectory = join(temporary, 'data');
const workspacesDirectory = join(temporary, 'workspaces');
// The directory alice's and carol's sessions work in (granted to them; the data directory never is).
const work = join(temporary, 'work');
await mkdir(work);
// The database `mango mcp` opens: alice with the defaults, bob without get_current_datetime, carol
// with bash enabled (shells are off by default).
await seedCliDatabase(dataDirectory, {
  users: ['alice', 'bob', 'carol', 'dave'],
  toolSettings: { bob: { get_current_datetime: { enabled: false } }, carol: { bash: { enabled: true } } },
  workspacesDirectory,
  grants: { alice: [work], carol: [work] },
});
afterAll(() => rm(temporary, { recursive: true, force: true }));

const environment: Record<string, string> = {
  ...(process.env as Record<string, string>),
  MANGO_DATA_DIR: dataDirectory,
  MANGO_WORKSPACES_DIR: workspacesDirectory,
};
delete environment.DATABASE_URL;

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(openClients.splice(0).map((client) => client.close()));
});

/** Starts `mango mcp` as a subprocess, the way an MCP client does, and connects the SDK client. */
async function connect(cliArguments: string[]) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['src/cli/main.ts', 'mcp', ...cliArguments],
    cwd: projectRoot,
    env: environment,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'test', version: '1' });
  // Anything on stdout that is not a protocol message surfaces here.
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  openClients.push(client);
  return { client, transport, protocolErrors };
}

function structured(result: unknown): Record<string, unknown> {
  return callResultData(result);
}

async function runMango(cliArguments: string[]) {
  const child = Bun.spawn([process.execPath, 'src/cli/main.ts', ...cliArguments], {
    cwd: projectRoot,
    env: environment,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  child.stdin.end();
  const [exitCode, stdout, stderr] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { exitCode, stdout, stderr };
}

describe('mango mcp over stdio', () => {
  test('a session that ends normally right after a bash call leaves none of its sandboxes 3 s later', async () => {
    // After each call the warm pool starts building the next sandbox: the session ends mid-build.
    for (let run = 0; run < 4; run++) {
      const { client } = await connect(['--user', 'carol', '--cwd', work]);
      try {
        const result = await client.callTool({ name: 'bash', arguments: { command: 'true' } });
        expect(result.isError).toBeFalsy();
        await client.close();
        const gone = await waitUntil(async () => (await sandboxProcessesIn(work)).length === 0, 3000);
        expect({ run, left: gone ? [] : await sandboxProcessesIn(work) }).toEqual({ run, left: [] });
      } finally {
        killEach(await sandboxProcessesIn(work));
      }
    }
  }, 60_000);

  test('lists, calls, and returns a validation failure as an isError result', async () => {
    const { client, protocolErrors } = await connect(['--user', 'alice', '--cwd', work]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_current_datetime');

    const ok = await client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'America/Sao_Paulo', locale: 'pt-BR' },
    });
    expect(ok.isError).toBeUndefined();
    expect(structured(ok).offset).toBe('GMT-3');

    const invalid = await client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'Mars/Olympus' },
    });
    expect(invalid.isError).toBe(true);
    expect(structured(invalid).error).toMatchObject({ classification: 'validation_failed' });
    expect(protocolErrors).toEqual([]);
  });

  test('a tool the user disabled is absent from the list and refused when called', async () => {
    const { client } = await connect(['--user', 'bob']);
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('get_current_datetime');
    const refused = await client.callTool({ name: 'get_current_datetime', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(structured(refused).error).toMatchObject({ classification: 'tool_disabled' });
  });

  test('a setting saved in the database by another process shows on the next tools/list', async () => {
    const { client } = await connect(['--user', 'dave']);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_current_datetime');
    const other = await openCliDependencies(
      { MANGO_DATA_DIR: dataDirectory, MANGO_WORKSPACES_DIR: workspacesDirectory },
      temporary,
    );
    try {
      const dave = await other.users.findByName('dave');
      await other.toolSettings.put(dave!.id, 'get_current_datetime', { enabled: false });
    } finally {
      await other.close();
    }
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('get_current_datetime');
  });

  test('the process exits 0 with nothing on stdout when stdin closes', async () => {
    const { exitCode, stdout, stderr } = await runMango(['mcp', '--user', 'alice']);
    expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: '' });
    expect(stderr).toContain('serving over stdio');
  });

  test('SIGTERM ends the session and the process exits 0', async () => {
    const child = Bun.spawn([process.execPath, 'src/cli/main.ts', 'mcp', '--user', 'alice'], {
      cwd: projectRoot,
      env: environment,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const reader = child.stderr.getReader();
    let stderr = '';
    while (!stderr.includes('serving over stdio')) {
      const { value, done } = await reader.read();
      if (done) break;
      stderr += new TextDecoder().decode(value);
    }
    child.kill('SIGTERM');
    expect(await child.exited).toBe(0);
    expect(await new Response(child.stdout).text()).toBe('');
  });

  test.each([
    [['mcp', '--user', 'nobody'], 1, 'no user named "nobody"'],
    [['mcp'], 2, 'needs --user NAME'],
    [['mcp', '--user', 'alice', '--unrestricted'], 1, 'This user may not have unrestricted chats'],
    [['mcp', '--user', 'alice', '--cwd', '/no/such/dir'], 1, 'is not inside any of your workspaces'],
    [['mcp', '--user', 'alice', '--cwd', 'data'], 1, 'is not inside any of your workspaces'],
    [['mcp', '--user', 'alice', '--restricted'], 2, "Unknown option '--restricted'"],
  ])('mango %p exits %p and says why on stderr', async (cliArguments, expectedCode, message) => {
    const { exitCode, stdout, stderr } = await runMango(cliArguments);
    expect(exitCode).toBe(expectedCode);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  test('bash is a registered builtin (the cancellation test below must run, not skip)', () => {
    expect(getTool('bash')).toBeDefined();
  });

  test('a client cancel kills a running `sleep 30` in bash', async () => {
    const { client } = await connect(['--user', 'carol', '--cwd', work]);
    // The command runs in the shell sandbox's own PID namespace, so it is found by its command line.
    const marker = `30.${String(Date.now() % 100_000).padStart(5, '0')}9`;
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'bash', arguments: { command: `exec sleep ${marker}` } },
      undefined,
      { signal: controller.signal },
    );
    call.catch(() => {});
    await waitUntil(async () => (await liveProcessesWith(marker)).length > 0, 15_000);
    expect((await liveProcessesWith(marker)).length).toBeGreaterThan(0);
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 15_000);
    expect(await liveProcessesWith(marker)).toEqual([]);
    // The session goes on after the cancel.
    expect((await client.callTool({ name: 'bash', arguments: { command: 'echo ok' } })).isError).toBeFalsy();
    // The waits above allow 15 s for a loaded machine; the test's own limit must not be shorter.
  }, 30_000);
});
