// A small stdio MCP server that works on one directory named in its arguments, as mcp-server-git
// (`--repository DIR`) and server-filesystem (`DIR`) do: it exits at once when DIR is not there (as it is
// not where DIR is out of reach). Its tools: `files` lists DIR, `roots` returns the roots the client
// offers, `grow` adds the tool "grown" and says the list changed.
// Usage: node directory-server.mjs DIR
import { readdirSync, statSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const directory = process.argv[2] ?? '';
try {
  if (!statSync(directory).isDirectory()) throw new Error('not a directory');
} catch (error) {
  process.stderr.write(`directory-server: cannot open ${directory}: ${error.code ?? error.message}\n`);
  process.exit(1);
}

const empty = { type: 'object', properties: {} };
const tools = [
  { name: 'files', description: 'Lists the directory.', inputSchema: empty },
  { name: 'roots', description: 'Returns the roots the client offers.', inputSchema: empty },
  { name: 'grow', description: 'Adds the tool "grown".', inputSchema: empty },
];
const server = new Server(
  { name: 'directory-server', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true } } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const text = (value) => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  switch (request.params.name) {
    case 'files':
      return text(readdirSync(directory).sort());
    case 'roots':
      return text((await server.listRoots()).roots);
    case 'grow':
      if (!tools.some((tool) => tool.name === 'grown')) {
        tools.push({ name: 'grown', description: 'Appeared later.', inputSchema: empty });
      }
      await server.sendToolListChanged();
      return text('grew');
    default:
      return text(`called ${request.params.name}`);
  }
});
await server.connect(new StdioServerTransport());
