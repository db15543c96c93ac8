// An MCP server that sends more than Mango takes in, for the tests of the MCP client's bounds. It lists
// TOOLS tools whose descriptions are DESCRIPTION_BYTES long, and its tool `big` answers with a text of
// `bytes` bytes (and, with `imageBytes`, a base64 image value of that many bytes after it).
// Usage: node oversized-server.mjs http PORT TOOLS DESCRIPTION_BYTES [json]  (prints "listening PORT")
//        node oversized-server.mjs stdio TOOLS DESCRIPTION_BYTES
// The transports are imported by mode: the HTTP one needs more memory than the shell sandbox allows.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [mode, ...rest] = process.argv.slice(2);
const [port, count, descriptionBytes, json] = mode === 'http' ? rest : [undefined, ...rest];
const description = 'd'.repeat(Number(descriptionBytes));
const tools = [
  {
    name: 'big',
    description: 'Answers with a text of `bytes` bytes.',
    inputSchema: {
      type: 'object',
      properties: { bytes: { type: 'integer' }, imageBytes: { type: 'integer' } },
      required: ['bytes'],
    },
  },
  ...Array.from({ length: Number(count) }, (_, index) => ({
    name: `tool_${index}`,
    description,
    inputSchema: { type: 'object', properties: {} },
  })),
];

function newServer() {
  const server = new Server({ name: 'oversized', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const bytes = Number(request.params.arguments?.bytes ?? 0);
    const content = [{ type: 'text', text: 'x'.repeat(bytes) }];
    const imageBytes = Number(request.params.arguments?.imageBytes ?? 0);
    if (imageBytes > 0) content.push({ type: 'image', mimeType: 'image/png', data: 'A'.repeat(imageBytes) });
    return { content };
  });
  return server;
}

if (mode === 'stdio') {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  await newServer().connect(new StdioServerTransport());
} else {
  const { randomUUID } = await import('node:crypto');
  const { createServer } = await import('node:http');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const sessions = new Map();
  const http = createServer(async (request, response) => {
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (transport === undefined) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json === 'json',
        onsessioninitialized: (sessionId) => sessions.set(sessionId, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(request, response);
  });
  http.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`listening ${http.address().port}\n`);
  });
}
