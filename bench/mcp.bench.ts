/**
 * MCP overhead: sequential `tools/call get_current_datetime` through our server on each transport,
 * next to the same call through `executeTool` directly and through a bare SDK `Server` that answers
 * `tools/call` with a constant (the transport's ceiling), measured in the same run.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { benchReachable } from './support/bench-reachable.ts';
import '../src/tools/builtin/register-builtin-tools.ts';
import { handleMcpHttpRequest, McpHttpSessions } from '../src/mcp/mcp-http-handler.ts';
import { createMcpToolServer } from '../src/mcp/mcp-tool-server.ts';
import { InMemoryToolSettingsRepository } from '../src/settings/tool-settings-repository.ts';
import { executeTool } from '../src/tools/execution.ts';
import { bindWorkingDirectory } from '../src/workspaces/bind-working-directory.ts';
import { seedCliDatabase } from '../tests/helpers/seed-cli-database.ts';
import { createTestWorkspaces } from '../tests/helpers/test-workspaces.ts';

const CALLS = Number(process.env.MCP_BENCH_CALLS ?? 500);
const args = { timezone: 'America/Sao_Paulo', locale: 'pt-BR' };
const toolSettings = new InMemoryToolSettingsRepository();

async function measure(label: string, call: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < 20; index += 1) await call(); // warm up
  const started = performance.now();
  for (let index = 0; index < CALLS; index += 1) await call();
  const microseconds = ((performance.now() - started) * 1000) / CALLS;
  console.log(`${label.padEnd(44)} ${microseconds.toFixed(0).padStart(7)} µs/call`);
  return microseconds;
}

function bareServer(): Server {
  const server = new Server({ name: 'bare', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: '{}' }] }));
  return server;
}

async function inMemoryClient(server: Server): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(clientTransport);
  return client;
}

const direct = await measure('executeTool directly', () =>
  executeTool('get_current_datetime', args, { userId: 'u', reachable: benchReachable() }),
);

const bareMemory = await inMemoryClient(bareServer());
const bareMemoryTime = await measure('bare SDK server, in-memory', () =>
  bareMemory.callTool({ name: 'x', arguments: {} }),
);
const workspaces = createTestWorkspaces();
const bound = await bindWorkingDirectory(workspaces.service, 'u', { cwd: undefined, unrestricted: false });
const oursMemory = await inMemoryClient(
  createMcpToolServer({ toolSettings, userId: 'u', resolveAccess: bound.resolveAccess, log: () => {} }),
);
const oursMemoryTime = await measure('mango MCP, in-memory', () =>
  oursMemory.callTool({ name: 'get_current_datetime', arguments: args }),
);

// HTTP: a bare stateless SDK transport per request vs our session handler.
const sessions = new McpHttpSessions();
const http = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (new URL(request.url).pathname === '/bare') {
      const server = bareServer();
      const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
      await server.connect(transport);
      return transport.handleRequest(request);
    }
    return handleMcpHttpRequest(
      request,
      { id: 'u' },
      { sessions, toolSettings, workspaces: workspaces.service, log: () => {} },
    );
  },
});
const bareHttp = new Client({ name: 'bench', version: '1' });
await bareHttp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/bare`)));
const bareHttpTime = await measure('bare SDK server, Streamable HTTP (stateless)', () =>
  bareHttp.callTool({ name: 'x', arguments: {} }),
);
const oursHttp = new Client({ name: 'bench', version: '1' });
await oursHttp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${http.port}/mcp`)));
const oursHttpTime = await measure('mango MCP, Streamable HTTP (session)', () =>
  oursHttp.callTool({ name: 'get_current_datetime', arguments: args }),
);

const temporary = await mkdtemp(join(tmpdir(), 'mango-mcp-bench-'));
// `mango mcp` reads its user from the database in MANGO_DATA_DIR (SQLite), like the server.
const dataDirectory = join(temporary, 'data');
await seedCliDatabase(dataDirectory, { users: ['bench'] });
const stdioEnvironment: Record<string, string> = {
  ...(process.env as Record<string, string>),
  MANGO_DATA_DIR: dataDirectory,
};
delete stdioEnvironment.DATABASE_URL;
const stdio = new Client({ name: 'bench', version: '1' });
const spawnStarted = performance.now();
await stdio.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ['src/cli/main.ts', 'mcp', '--user', 'bench'],
    cwd: resolve(import.meta.dir, '..'),
    env: stdioEnvironment,
    stderr: 'ignore',
  }),
);
console.log(
  `${'mango mcp stdio: spawn + initialize'.padEnd(44)} ${(performance.now() - spawnStarted).toFixed(0).padStart(7)} ms`,
);
const stdioTime = await measure('mango MCP, stdio', () =>
  stdio.callTool({ name: 'get_current_datetime', arguments: args }),
);

console.log('\nratios (lower is better)');
console.log(`  in-memory: mango / bare SDK            ${(oursMemoryTime / bareMemoryTime).toFixed(2)}×`);
console.log(`  in-memory: mango / executeTool          ${(oursMemoryTime / direct).toFixed(2)}×`);
console.log(`  HTTP:      mango / bare SDK             ${(oursHttpTime / bareHttpTime).toFixed(2)}×`);
console.log(`  stdio:     mango / executeTool          ${(stdioTime / direct).toFixed(2)}×`);

await Promise.allSettled([
  bareMemory.close(),
  oursMemory.close(),
  bareHttp.close(),
  oursHttp.close(),
  stdio.close(),
]);
await sessions.closeAll();
http.stop(true);
await rm(temporary, { recursive: true, force: true });
workspaces.dispose();
