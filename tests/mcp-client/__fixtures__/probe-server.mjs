// A small MCP server over stdio for the MCP client tests: it reads and writes files (to prove what its
// sandbox shows), waits until cancelled (recording the cancel in its state directory), crashes on request,
// offers a tool whose schema OpenAI strict mode cannot take, and grows a tool on request (sending
// notifications/tools/list_changed).
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const state = process.env.PROBE_STATE_DIR;
const tools = [
  {
    name: 'read_path',
    description: 'Reads a file and returns its text, or the error.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'write_path',
    description: 'Writes text to a file and says whether it worked.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] },
  },
  {
    name: 'write_state',
    description: 'Writes text into the state directory.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
  {
    name: 'wait_for_cancel',
    description: 'Waits until cancelled or 60 s.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'crash',
    description: 'Exits the process in the middle of the call.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'free_form',
    description: 'Takes an open-ended map.',
    inputSchema: {
      type: 'object',
      properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
      required: ['labels'],
    },
  },
  {
    name: 'connect',
    description: 'Opens a TCP connection to host:port and says whether it worked.',
    inputSchema: { type: 'object', properties: { host: { type: 'string' }, port: { type: 'integer' } }, required: ['host', 'port'] },
  },
  {
    name: 'grow',
    description: 'Adds the tool "grown" and says the list changed.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'Odd.Name With Spaces',
    description: 'A tool whose name needs mapping.',
    inputSchema: { type: 'object', properties: {} },
  },
];

const server = new Server({ name: 'probe', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'read_path':
      try {
        return { content: [{ type: 'text', text: readFileSync(String(args.path), 'utf8') }] };
      } catch (error) {
        return { content: [{ type: 'text', text: `cannot read: ${error.code ?? error.message}` }], isError: true };
      }
    case 'write_path':
      try {
        writeFileSync(String(args.path), String(args.text));
        return { content: [{ type: 'text', text: 'written' }] };
      } catch (error) {
        return { content: [{ type: 'text', text: `cannot write: ${error.code ?? error.message}` }], isError: true };
      }
    case 'write_state':
      writeFileSync(join(state, 'written.txt'), String(args.text));
      return { content: [{ type: 'text', text: `wrote to ${state}` }] };
    case 'wait_for_cancel':
      appendFileSync(join(state, 'events.txt'), 'started\n');
      return await new Promise((resolve) => {
        const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'not cancelled' }] }), 60_000); // fixture: a call that runs for a minute unless cancelled
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          appendFileSync(join(state, 'events.txt'), 'cancelled\n');
          resolve({ content: [{ type: 'text', text: 'cancelled' }] });
        });
      });
    case 'crash':
      process.stderr.write('probe: crashing on purpose\n');
      setTimeout(() => process.exit(3), 10); // fixture: a server that crashes mid-call
      return await new Promise(() => {});
    case 'connect':
      return await new Promise((resolve) => {
        const socket = connect({ host: String(args.host), port: Number(args.port) });
        socket.once('connect', () => {
          socket.destroy();
          resolve({ content: [{ type: 'text', text: 'connected' }] });
        });
        socket.once('error', (error) => resolve({ content: [{ type: 'text', text: `refused: ${error.code}` }] }));
      });
    case 'grow':
      if (!tools.some((tool) => tool.name === 'grown')) {
        tools.push({ name: 'grown', description: 'Appeared later.', inputSchema: { type: 'object', properties: {} } });
      }
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'grew' }] };
    case 'free_form':
      return { content: [{ type: 'text', text: JSON.stringify(args.labels) }] };
    default:
      return { content: [{ type: 'text', text: `called ${request.params.name}` }] };
  }
});
await server.connect(new StdioServerTransport());
