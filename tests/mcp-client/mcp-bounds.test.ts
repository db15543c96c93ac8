/**
 * The bounds on what external MCP servers send, end to end over Streamable HTTP (event streams and
 * JSON bodies) and over stdio in the shell sandbox: a listing of 3 × 60 tools with 1 MiB descriptions is refused whole and leaves the
 * server's memory near where it was, and a 50 MiB result arrives cut with the cut marker.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { ExternalToolSource } from '../../src/mcp-client/external-tool-source.ts';
import { DEFAULT_MCP_BOUNDS } from '../../src/mcp-client/mcp-bounds.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { CUT_MARKER_PATTERN } from '../../src/tools/output/cut-marker.ts';
import {
  DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
  serializeToolOutput,
} from '../../src/tools/output/result-budget.ts';
import { makeToolContext } from '../helpers/tool-context.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup, loopbackHttpToolSource } from './external-servers.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'oversized-server.mjs');
const MIB = 1024 * 1024;

const running: Subprocess<'ignore', 'pipe', 'inherit'>[] = [];

/** Starts the fixture over HTTP and resolves with its port once it listens. */
async function startServer(tools: number, descriptionBytes: number, json = false): Promise<number> {
  const args = ['node', FIXTURE, 'http', '0', String(tools), String(descriptionBytes)];
  const child = Bun.spawn(json ? [...args, 'json'] : args, {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  running.push(child);
  const reader = child.stdout.getReader();
  let printed = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    printed += new TextDecoder().decode(chunk.value);
    const found = /listening (\d+)\n/.exec(printed);
    if (found) {
      reader.releaseLock();
      return Number(found[1]);
    }
  }
  throw new Error(`the fixture ended before it listened: ${printed}`);
}

function sourceFor(servers: { name: string; port: number }[]): ExternalToolSource {
  return loopbackHttpToolSource(servers, { connectTimeoutMs: 30_000, userId: 'alice' });
}

/** The process's resident set after a full collection, in bytes. */
function settledRss(): number {
  Bun.gc(true);
  return process.memoryUsage().rss;
}

afterAll(async () => {
  for (const child of running.splice(0)) {
    child.kill('SIGKILL');
    await child.exited;
  }
});

describe('bounds on external MCP servers over HTTP', () => {
  let small: number;
  let smallJson: number;
  let source: ExternalToolSource;

  beforeAll(async () => {
    [small, smallJson] = await Promise.all([startServer(1, 10), startServer(1, 10, true)]);
    source = sourceFor([
      { name: 'small', port: small },
      { name: 'json', port: smallJson },
    ]);
  }, 30_000);
  afterAll(() => source.close());

  async function bigTool(server: string) {
    const tool = (await source.registryFor('alice')).get(`mcp__${server}__big`);
    if (tool === undefined) throw new Error(`mcp__${server}__big is not listed`);
    return tool;
  }

  test('a listing of 3 × 60 tools with 1 MiB descriptions is refused whole, and memory stays near its baseline', async () => {
    const ports = await Promise.all([1, 2, 3].map(() => startServer(60, MIB)));
    const oversized = sourceFor(ports.map((port, index) => ({ name: `huge${index}`, port })));
    try {
      // The baseline is taken with the code paths warm: a small listing and call went through already.
      await (await bigTool('small')).execute({ bytes: 10 }, makeToolContext({ userId: 'alice' }));
      const baseline = settledRss();
      const { servers } = await oversized.serverStates('alice');
      expect(servers.map((server) => server.status)).toEqual(['failed', 'failed', 'failed']);
      for (const server of servers) {
        expect(server.error).toMatch(
          new RegExp(
            `^The MCP server "${server.name}" was refused: its tool listing is at least \\d+ bytes, over the 1 MiB limit for one listing \\(MANGO_MCP_MAX_LISTING_BYTES\\); none of its tools are offered until its listing fits\\.$`,
          ),
        );
      }
      expect((await oversized.registryFor('alice')).list()).toEqual([]);
      const growth = settledRss() - baseline;
      expect(growth).toBeLessThan(32 * MIB);
    } finally {
      await oversized.close();
    }
  }, 120_000);

  for (const server of ['small', 'json'] as const) {
    test(`a 50 MiB result arrives cut at the message limit, the cut marker first (${server === 'small' ? 'event stream' : 'JSON body'})`, async () => {
      const tool = await bigTool(server);
      const result = (await tool.execute({ bytes: 50 * MIB }, makeToolContext({ userId: 'alice' }))) as {
        content: { type: string; text?: string }[];
      };
      expect(result.content.map((block) => block.type)).toEqual(['text', 'text']);
      const [marker, text] = result.content.map((block) => ({ text: block.text ?? '' })) as [
        { text: string },
        { text: string },
      ];
      const sent = Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: '' }] })) + 50 * MIB;
      expect(marker.text).toBe(
        `[cut: this result is ${sent} bytes as the MCP server sent it, over the 8 MiB read of one result, and only what fit is kept below; ask for less if the tool's arguments allow it (a narrower query, a smaller page)]`,
      );
      // What fit: the message limit less the message's bytes before the text.
      const before = Buffer.byteLength('{"result":{"content":[{"type":"text","text":"');
      expect(text.text).toBe('x'.repeat(DEFAULT_MCP_BOUNDS.maxResultBytes - before));
      // The turn's result budget then cuts it as any tool's, keeping the first marker.
      const serialized = serializeToolOutput({ ok: true, result });
      expect(serialized.truncated).toBe(true);
      expect(Buffer.byteLength(serialized.output)).toBeLessThanOrEqual(DEFAULT_TOOL_OUTPUT_BUDGET_BYTES);
      expect(
        serialized.output.startsWith(`{"content":[{"type":"text","text":${JSON.stringify(marker.text)}}`),
      ).toBe(true);
      expect(serialized.output.match(new RegExp(CUT_MARKER_PATTERN, 'g'))?.length).toBe(2);
    }, 60_000);
  }

  test('an image that does not fit is left out whole, never stored cut, and the result says it was cut', async () => {
    const tool = await bigTool('small');
    const result = (await tool.execute(
      { bytes: 10, imageBytes: 9 * MIB },
      makeToolContext({ userId: 'alice' }),
    )) as {
      content: { type: string; text?: string }[];
    };
    expect(result.content.map((block) => block.type)).toEqual(['text', 'text']);
    expect(result.content[0]?.text).toMatch(
      /^\[cut: this result is \d+ bytes as the MCP server sent it, over the 8 MiB read/,
    );
    expect(result.content[1]?.text).toBe('x'.repeat(10));
  }, 60_000);
});

describeSandbox('bounds on external MCP servers on stdio', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;

  function stdioServer(name: string, tools: number, descriptionBytes: number) {
    return {
      name,
      transport: 'stdio' as const,
      command: 'node',
      args: [FIXTURE, 'stdio', String(tools), String(descriptionBytes)],
      env: {},
      network: 'none' as const,
      // The fixture lies in the repository, next to node_modules: both read-only.
      packageDirectory: join(import.meta.dir, '..', '..'),
    };
  }

  beforeAll(async () => {
    sandbox = createTestSandbox();
    setup = await createExternalSetup(sandbox, [stdioServer('small', 1, 10), stdioServer('huge', 60, MIB)]);
  }, 60_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
  }, 30_000);

  test('a listing of 60 tools with 1 MiB descriptions is refused whole; the small server is listed', async () => {
    const { servers } = await setup.source.serverStates('alice');
    expect(servers.map((server) => [server.name, server.status, server.error])).toEqual([
      ['small', 'connected', undefined],
      [
        'huge',
        'failed',
        // The page as the fixture sends it: 60 descriptions of 1 MiB, the `big` tool, the JSON around them.
        'The MCP server "huge" was refused: its tool listing is at least 62919797 bytes, over the 1 MiB limit for one listing (MANGO_MCP_MAX_LISTING_BYTES); none of its tools are offered until its listing fits.',
      ],
    ]);
  }, 60_000);

  test('a 50 MiB result arrives cut at the message limit, the cut marker first', async () => {
    const tool = (await setup.source.registryFor('alice', setup.aliceReachable)).get('mcp__small__big');
    if (tool === undefined) throw new Error('mcp__small__big is not listed');
    const result = (await tool.execute(
      { bytes: 50 * MIB },
      makeToolContext({ userId: 'alice', reachable: setup.aliceReachable }),
    )) as { content: { type: string; text?: string }[] };
    const sent = Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: '' }] })) + 50 * MIB;
    expect(result.content[0]?.text).toBe(
      `[cut: this result is ${sent} bytes as the MCP server sent it, over the 8 MiB read of one result, and only what fit is kept below; ask for less if the tool's arguments allow it (a narrower query, a smaller page)]`,
    );
    const before = Buffer.byteLength('{"result":{"content":[{"type":"text","text":"');
    expect(result.content[1]?.text).toBe('x'.repeat(DEFAULT_MCP_BOUNDS.maxResultBytes - before));
  }, 60_000);
});
