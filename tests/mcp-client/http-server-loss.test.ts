/**
 * What a call to an external MCP server over Streamable HTTP does when the server goes away, against a
 * real SDK server in its own process on loopback:
 * - the server dies in the middle of a call: the call fails at once as an `execution_error` naming the
 *   server and the lost connection, instead of waiting out its budget;
 * - the server restarts (its sessions are gone, it answers 404 "Session not found"): the call
 *   initializes a new session and is sent once more, and succeeds.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { ExternalToolSource } from '../../src/mcp-client/external-tool-source.ts';
import { ToolError } from '../../src/tools/errors.ts';
import { makeToolContext } from '../helpers/tool-context.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { loopbackHttpToolSource } from './external-servers.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'http-session-server.mjs');

interface RunningServer {
  process: Subprocess<'ignore', 'pipe', 'inherit'>;
  port: number;
  /** Resolves when the server printed `line`. */
  printed: (line: string) => Promise<void>;
}

const started: RunningServer[] = [];

async function startServer(port = 0): Promise<RunningServer> {
  // Under Node, whose HTTP server puts each event on the wire as it is written (the point of the test
  // is a stream that has started when the server dies).
  const child = Bun.spawn(['node', FIXTURE, String(port)], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const lines: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  void (async () => {
    let buffered = '';
    const reader = child.stdout.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      buffered += new TextDecoder().decode(chunk.value);
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        for (const waiter of waiters.filter((entry) => entry.line === line)) waiter.resolve();
      }
    }
  })();
  const printed = (line: string) =>
    lines.includes(line)
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiters.push({ line, resolve });
        });
  const listeningLine = () => lines.find((line) => line.startsWith('listening '));
  if (!(await waitUntil(() => listeningLine() !== undefined, 10_000))) {
    child.kill('SIGKILL');
    throw new Error('The HTTP session server never said it was listening.');
  }
  const server = { process: child, port: Number(listeningLine()!.slice('listening '.length)), printed };
  started.push(server);
  return server;
}

afterEach(async () => {
  for (const server of started.splice(0)) {
    server.process.kill('SIGKILL');
    await server.process.exited;
  }
});

function sourceFor(port: number) {
  return loopbackHttpToolSource([{ name: 'remote', port }], { connectTimeoutMs: 10_000 });
}

async function toolOf(source: ExternalToolSource, name: string) {
  const tool = (await source.registryFor('user-1')).get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

describe('an external MCP server over HTTP that goes away', () => {
  test('a server that dies in the middle of a call fails the call at once, naming the server', async () => {
    const server = await startServer();
    const source = sourceFor(server.port);
    try {
      const hang = await toolOf(source, 'mcp__remote__hang');
      const call = hang.execute({}, makeToolContext()).then(
        () => 'answered',
        (error: unknown) => error,
      );
      await server.printed('hang');
      server.process.kill('SIGKILL');
      const outcome = await call;
      expect(ToolError.isInstance(outcome)).toBe(true);
      const error = outcome as ToolError;
      expect(error.classification).toBe('execution_error');
      expect(error.message).toStartWith('The MCP server "remote" lost the connection during the call: ');
    } finally {
      await source.close();
    }
  }, 20_000);

  test('after the server restarts, the next call opens a new session and succeeds', async () => {
    const first = await startServer();
    const source = sourceFor(first.port);
    try {
      const echo = await toolOf(source, 'mcp__remote__echo');
      expect(await echo.execute({ text: 'one' }, makeToolContext())).toEqual({
        content: [{ type: 'text', text: 'one' }],
      });
      first.process.kill('SIGKILL');
      await first.process.exited;
      await startServer(first.port);
      expect(await echo.execute({ text: 'two' }, makeToolContext())).toEqual({
        content: [{ type: 'text', text: 'two' }],
      });
    } finally {
      await source.close();
    }
  }, 20_000);
});
