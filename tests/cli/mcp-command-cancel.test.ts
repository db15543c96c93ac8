/**
 * A client's cancel of a running call, over the stdio of a real `mango mcp` process: the client's call
 * ends with the cancel's reason, the cancel reaches the server as `notifications/cancelled` and fires the
 * running call's signal with a `cancelled` reason, and a server that goes on past the cancel sends no
 * late answer for it while the session serves the next calls. The server's side is a probe tool that
 * says on stderr when the request reached it, when the cancel did and when it ended (the fixture), so
 * each step waits for the one before it, never for a time: however long the server takes, the order
 * of events is what is asserted.
 */

import { afterAll, afterEach, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Stream } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { seedCliDatabase } from '../helpers/seed-cli-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const projectRoot = resolve(import.meta.dir, '../..');
const temporary = await mkdtemp(join(tmpdir(), 'mango-mcp-cancel-'));
const dataDirectory = join(temporary, 'data');
const workspacesDirectory = join(temporary, 'workspaces');
await seedCliDatabase(dataDirectory, { users: ['erin'], workspacesDirectory });
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

/** The probe's lines on the server's stderr, in order, and a wait for what it has said so far. */
function probeLines(stream: Stream | null) {
  if (stream === null) throw new Error('the server’s stderr is not piped');
  let text = '';
  let ended = false;
  let changed = Promise.withResolvers<void>();
  const said = () =>
    text
      .split('\n')
      .filter((line) => line.startsWith('probe: '))
      .map((line) => line.slice('probe: '.length));
  const wake = () => {
    changed.resolve();
    changed = Promise.withResolvers<void>();
  };
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    wake();
  });
  stream.on('end', () => {
    ended = true;
    wake();
  });
  return {
    /**
     * Resolves once the probe has said exactly `lines`; fails when it said something else, when the
     * server's stderr ends first, or past `timeoutMs` (a bound on a failure, not a pace).
     */
    async until(lines: string[], timeoutMs = 15_000): Promise<void> {
      const settled = () =>
        ended || said().length >= lines.length || JSON.stringify(said()) === JSON.stringify(lines);
      if (!(await waitUntil(settled, timeoutMs))) {
        throw new Error(`the probe said ${JSON.stringify(said())}`);
      }
      if (JSON.stringify(said()) === JSON.stringify(lines)) return;
      if (said().length >= lines.length) expect(said()).toEqual(lines);
      throw new Error(`the server ended; its stderr:\n${text}`);
    },
  };
}

async function connect() {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(import.meta.dir, '__fixtures__', 'mango-mcp-with-probe.ts'), '--user', 'erin'],
    cwd: projectRoot,
    env: environment,
    stderr: 'pipe',
  });
  const probe = probeLines(transport.stderr);
  const client = new Client({ name: 'test', version: '1' });
  // A response for a request the client no longer waits for (a late answer to a cancel) lands here.
  const protocolErrors: string[] = [];
  client.onerror = (error) => protocolErrors.push(error.message);
  await client.connect(transport);
  openClients.push(client);
  return { client, probe, protocolErrors };
}

test('a cancel over stdio reaches the running call as cancelled, however long the server takes; the session goes on', async () => {
  const { client, probe, protocolErrors } = await connect();
  const controller = new AbortController();
  const ending = client
    .callTool({ name: 'hold', arguments: { value: 'first' } }, undefined, { signal: controller.signal })
    .then(
      () => ({ answered: true }),
      (error: { code?: unknown; message?: unknown }) => ({ code: error.code, message: error.message }),
    );

  // Only once the server runs the call does the client cancel it.
  await probe.until(['request first']);
  controller.abort('user pressed stop');
  // The client's call ends with the cancel's reason, under the SDK's request-timeout code (-32001).
  expect(await ending).toEqual({ code: -32001, message: 'MCP error -32001: user pressed stop' });
  // The cancel reached the server as notifications/cancelled: the call's signal fired, as a cancel.
  await probe.until(['request first', 'cancel cancelled']);

  // The server has not finished the cancelled call, and serves the next one meanwhile.
  expect(callResultData(await client.callTool({ name: 'release', arguments: {} }))).toEqual({
    released: true,
  });
  await probe.until(['request first', 'cancel cancelled', 'ended first']);
  // Any answer to the cancelled request would have come on the pipe before this one's.
  expect((await client.callTool({ name: 'get_current_datetime', arguments: {} })).isError).toBeUndefined();
  expect(protocolErrors).toEqual([]);
}, 30_000);
