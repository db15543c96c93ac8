/**
 * `mango mcp-servers list | test` in process, against a real SQLite database, the operator file and a
 * real server (server-everything on stdio, in the shell sandbox).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseUserMcpServerRepository } from '../../src/db/database-user-mcp-server-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { EVERYTHING_SCRIPT, NODE_MODULES } from '../mcp-client/external-servers.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';

describeSandbox('mango mcp-servers', () => {
  let handle: TestDatabase;
  let directory: string;
  let file: string;

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    // The sandbox uid passes through it to the user's workspace (the data directory is the server's).
    chmodSync(handle.config.workspacesDirectory, 0o711);
    directory = mkdtempSync(join(tmpdir(), 'mango-mcp-cli-'));
    file = join(directory, 'servers.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          everything: { command: 'node', args: [EVERYTHING_SCRIPT, 'stdio'], packageDirectory: NODE_MODULES },
          remote: { url: 'http://10.0.0.1/mcp', headers: { Authorization: 'Bearer secret-token' } },
        },
      }),
    );
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    rmSync(directory, { recursive: true, force: true });
  });

  async function run(argv: string[], env: Record<string, string> = {}) {
    return runCliCaptured(argv, directory, {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      MANGO_MCP_SERVERS: file,
      ...env,
    });
  }

  test('list shows the file; --json never shows header values', async () => {
    expect(await run(['mcp-servers', 'list'])).toEqual({
      code: 0,
      stdout: `everything  stdio node ${EVERYTHING_SCRIPT} stdio (network: none)\nremote  http  http://10.0.0.1/mcp\n`,
      stderr: '',
    });
    const json = await run(['mcp-servers', 'list', '--json']);
    expect(json.code).toBe(0);
    expect(json.stdout).not.toContain('secret-token');
    expect(JSON.parse(json.stdout).servers[1]).toEqual({
      name: 'remote',
      transport: 'http',
      url: 'http://10.0.0.1/mcp',
      headers: ['Authorization'],
    });
  });

  test('list --user and test connect as the user; a refused server says why', async () => {
    expect((await run(['user', 'add', 'eve'])).code).toBe(0);
    const eve = await new DatabaseUserRepository(handle.database).findByName('eve');
    await new DatabaseUserMcpServerRepository(handle.database).insert({
      userId: eve?.id ?? '',
      name: 'own',
      url: 'http://10.0.0.3/mcp',
      headerNames: [],
      sealedHeaders: null,
      createdAt: '2026-12-01T00:00:00.000Z',
      updatedAt: '2026-12-01T00:00:00.000Z',
    });
    const listed = await run(['mcp-servers', 'list', '--user', 'eve']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('everything  stdio node');
    expect(listed.stdout).toMatch(/— connected, \d+ tools\n/);
    expect(listed.stdout).toContain(
      'remote  http  http://10.0.0.1/mcp  — failed: The MCP server "remote" could not be connected: Refused to connect to http://10.0.0.1: it resolves to 10.0.0.1, a private address.',
    );
    expect(listed.stdout).toContain(
      'own  http  http://10.0.0.3/mcp  — failed: The MCP server "own" could not be connected',
    );
    expect((await run(['mcp-servers', 'list'])).stdout).not.toContain('own');
    const tested = await run(['mcp-servers', 'test', 'everything', '--user', 'eve']);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain('  mcp__everything__echo\n');
    const refused = await run(['mcp-servers', 'test', 'remote', '--user', 'eve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'mango: remote: The MCP server "remote" could not be connected: Refused',
    );
  }, 60_000);

  test('list --user shows a listing over a bound as failed, naming the bound and its variable', async () => {
    expect((await run(['user', 'add', 'max'])).code).toBe(0);
    const listed = await run(['mcp-servers', 'list', '--user', 'max'], { MANGO_MCP_MAX_TOOLS: '3' });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^everything {2}stdio node .+ — failed: The MCP server "everything" was refused: it lists more than 3 tools \(\d+ so far\), the most one server may list \(MANGO_MCP_MAX_TOOLS\); none of its tools are offered until its listing fits\.$/m,
    );
  }, 60_000);

  test('usage mistakes and a missing file', async () => {
    expect((await run(['mcp-servers', 'test', 'everything'])).stderr).toContain('needs --user NAME');
    expect((await run(['mcp-servers', 'test', 'nope', '--user', 'eve'])).stderr).toBe(
      'mango: eve has no MCP server "nope"; they have everything, remote, own.\n',
    );
    const missing = await run(['mcp-servers', 'list'], {
      MANGO_MCP_SERVERS: join(directory, 'missing.json'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('which cannot be read: ENOENT');
  });
});
