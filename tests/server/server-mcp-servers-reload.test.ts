/**
 * `mango serve` as a real process with `MANGO_MCP_SERVERS`: it names the operator's servers at start,
 * SIGHUP re-reads the file and says what changed, and a file broken meanwhile is not applied (the
 * servers stay as they were, and stderr says why).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { waitUntil } from '../helpers/wait-until.ts';

let directory: string;
let file: string;
let server: ServerProcess;

function servers(names: string[]): void {
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: Object.fromEntries(names.map((name) => [name, { url: `https://${name}.example/mcp` }])),
    }),
  );
}

async function waitFor(pattern: RegExp, read: () => string): Promise<void> {
  await waitUntil(() => pattern.test(read()), 15_000);
  expect(read()).toMatch(pattern);
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'mango-mcp-sighup-'));
  file = join(directory, 'servers.json');
  servers(['alpha', 'beta']);
  server = await startServerProcess({
    MANGO_DATA_DIR: join(directory, 'data'),
    MANGO_WORKSPACES_DIR: join(directory, 'workspaces'),
    MANGO_MCP_SERVERS: file,
  });
}, 30_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(directory, { recursive: true, force: true });
}, 30_000);

test('SIGHUP re-reads the servers file; a broken file keeps the servers in force', async () => {
  expect(server.output()).toContain('External MCP servers offered to every user: alpha, beta.');
  servers(['alpha', 'gamma']);
  server.child.kill('SIGHUP');
  await waitFor(/SIGHUP: re-read the MCP servers file; changed: beta, gamma\./, server.output);
  writeFileSync(file, '{"mcpServers": ');
  server.child.kill('SIGHUP');
  // The process is still serving after the refused reload.
  await waitFor(/SIGHUP: the MCP servers file was not applied, the servers stay as they were/, server.errors);
  const health = await fetch(`${server.url}/api/health`);
  expect(health.status).toBe(200);
  // Had the broken file emptied the list, this reload would report alpha and gamma as changed.
  servers(['alpha', 'gamma']);
  server.child.kill('SIGHUP');
  await waitFor(/SIGHUP: re-read the MCP servers file; nothing changed\./, server.output);
}, 30_000);
