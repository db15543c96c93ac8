// A small MCP server over Streamable HTTP with stateful sessions, for the tests of what the client does
// when the server goes away: `hang` starts its event stream with a log message and then never answers
// (it prints "hang" on stdout once the message is out, so the test knows the stream is open), `echo`
// answers at once. Usage: node http-session-server.mjs PORT (0 for any);
// prints "listening PORT" once it listens.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const tools = [
  { name: 'hang', description: 'Never answers.', inputSchema: { type: 'object', properties: {} } },
  {
    name: 'echo',
    description: 'Answers with its text.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

function newSession() {
  const server = new Server({ name: 'http-session-server', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    if (request.params.name === 'hang') {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'started' } });
      process.stdout.write('hang\n');
      return new Promise(() => {});
    }
    return { content: [{ type: 'text', text: String(request.params.arguments?.text ?? '') }] };
  });
  return server;
}

const sessions = new Map();
const http = createServer(async (request, response) => {
  const id = request.headers['mcp-session-id'];
  let transport = typeof id === 'string' ? sessions.get(id) : undefined;
  if (transport === undefined) {
    if (typeof id === 'string') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }));
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
    });
    await newSession().connect(transport);
  }
  await transport.handleRequest(request, response);
});
http.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${http.address().port}\n`);
});
