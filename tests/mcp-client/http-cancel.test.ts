/**
 * A cancelled call to a Streamable HTTP server reaches the server: Mango sends
 * `notifications/cancelled` for the request, and the server's handler sees its signal abort. The server
 * is an in-process MCP server on loopback (allowed here with `allowPrivate`) that records what its
 * handler saw, so the test reads the server's side, not only the client's result.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup } from './external-servers.ts';

/** What the server's handler saw, in order. */
const seen: string[] = [];

function startServer() {
  const server = new Server({ name: 'cancel-probe', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'wait_for_cancel',
        description: 'Waits until cancelled or 30 s.',
        inputSchema: { type: 'object' },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (_request, extra) => {
    seen.push('started');
    return await new Promise((resolve) => {
      const finish = () => {
        seen.push('not cancelled');
        resolve({ content: [{ type: 'text', text: 'not cancelled' }] });
      };
      const timer = setTimeout(finish, 30_000); // fixture: a call that runs for 30 s unless cancelled
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        seen.push(`cancelled: ${String(extra.signal.reason)}`);
        resolve({ content: [{ type: 'text', text: 'cancelled' }] });
      });
    });
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
  });
  const connected = server.connect(transport);
  const http = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      await connected;
      return transport.handleRequest(request);
    },
  });
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    stop: async () => {
      await server.close();
      http.stop(true);
    },
  };
}

describeSandbox('a cancel over Streamable HTTP', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;
  let server: ReturnType<typeof startServer>;

  beforeAll(async () => {
    server = startServer();
    sandbox = createTestSandbox();
    setup = await createExternalSetup(
      sandbox,
      [{ name: 'web', transport: 'http', url: server.url, headers: {} }],
      { allowPrivate: true },
    );
  }, 30_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
    await server.stop();
  });

  test('reaches the server as notifications/cancelled, and the call ends as cancelled', async () => {
    const registry = await setup.source.registryFor('alice');
    expect(registry.get('mcp__web__wait_for_cancel')).toBeDefined();
    const controller = new AbortController();
    const running = executeTool(
      'mcp__web__wait_for_cancel',
      {},
      {
        userId: 'alice',
        chatId: 'chat-1',
        reachable: setup.aliceReachable,
        dataDirectory: setup.dataDirectory,
        signal: controller.signal,
      },
      undefined,
      { registry },
    );
    await waitUntil(() => seen.includes('started'), 10_000);
    expect(seen).toEqual(['started']);
    controller.abort();
    const outcome = await running;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.classification).toBe('cancelled');
    await waitUntil(() => seen.length >= 2, 10_000);
    // The reason Mango sends with the notification, as the server's SDK hands it to the handler.
    expect(seen).toEqual([
      'started',
      'cancelled: ToolCancelledError: Tool "mcp__web__wait_for_cancel" was cancelled before it finished.',
    ]);
  }, 30_000);
});
