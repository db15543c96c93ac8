/**
 * CI: the official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
 * package.json) against `/mcp` of a real server. The server gets a fresh SQLite data dir and a user;
 * a loopback proxy adds that user's bearer token to every request (the suite sends none) and passes
 * every other header through unchanged, Host and Origin included, so the DNS-rebinding checks reach
 * the server's own gate.
 *
 * Every scenario in `.ci/mcp-conformance-required.txt` must pass; the scenarios that do not apply to
 * a server exposing only tools are listed with their reason in `.ci/mcp-conformance-not-applicable.txt`.
 * Prints one line per scenario, then ` N pass` / ` N fail` as `bun test` does (so `.ci/run` counts
 * them with the tests), and exits non-zero when a required one fails.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../src/config.ts';
import { startServer } from '../src/server/start-server.ts';

const root = join(import.meta.dir, '..');
const suite = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

function listed(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter((line) => line !== '');
}

const required = listed(await readFile(join(import.meta.dir, 'mcp-conformance-required.txt'), 'utf8'));
const temporary = await mkdtemp(join(tmpdir(), 'mango-conformance-'));
const dataDirectory = join(temporary, 'data');
const server = await startServer(
  {
    host: '127.0.0.1',
    port: 0,
    dataDirectory,
    workspacesDirectory: join(temporary, 'workspaces'),
    databaseUrl: undefined,
    shutdownTimeoutMs: 2_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  },
  { print: () => {}, env: process.env },
);
const { token } = await server.deps.users.create('conformance');
const upstream = new URL(server.url);

const proxy = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  idleTimeout: 0,
  async fetch(request) {
    const target = new URL(request.url);
    target.protocol = upstream.protocol;
    target.host = upstream.host;
    const headers = new Headers(request.headers);
    headers.set('authorization', `Bearer ${token}`);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    return fetch(target, {
      method: request.method,
      headers,
      ...(hasBody ? { body: await request.arrayBuffer() } : {}),
      signal: request.signal,
      redirect: 'manual',
    });
  },
});

let failures = 0;
try {
  for (const scenario of required) {
    const child = Bun.spawn(
      [
        process.execPath,
        suite,
        'server',
        '--url',
        `http://localhost:${proxy.port}/mcp`,
        '--scenario',
        scenario,
      ],
      { stdout: 'pipe', stderr: 'pipe', cwd: root },
    );
    const [code, output, errors] = await Promise.all([
      child.exited,
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    const passed = code === 0;
    console.log(`(${passed ? 'pass' : 'fail'}) mcp conformance > ${scenario}`);
    if (!passed) {
      failures += 1;
      console.log(output, errors);
    }
  }
} finally {
  proxy.stop(true);
  await server.stop();
  await rm(temporary, { recursive: true, force: true });
}
console.log(` ${required.length - failures} pass`);
console.log(` ${failures} fail`);
process.exit(failures === 0 ? 0 : 1);
