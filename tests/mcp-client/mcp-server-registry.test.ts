import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpMcpServerDeclaration } from '../../src/config/mcp-servers-file.ts';
import { createExternalTools } from '../../src/mcp-client/create-external-tool-source.ts';
import { McpServerRegistry } from '../../src/mcp-client/mcp-server-registry.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { createTestWorkspaces } from '../helpers/test-workspaces.ts';

const directory = mkdtempSync(join(tmpdir(), 'mango-mcp-registry-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function writeServers(file: string, servers: Record<string, unknown>): void {
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
}

describe('McpServerRegistry', () => {
  test('reload applies a changed file and names what changed; a broken file keeps the servers in force', () => {
    const file = join(directory, 'reload.json');
    writeServers(file, { a: { url: 'https://a.example/mcp' }, b: { url: 'https://b.example/mcp' } });
    const registry = new McpServerRegistry({ path: file });
    expect(registry.operatorServers().map((server) => server.name)).toEqual(['a', 'b']);
    writeServers(file, {
      a: { url: 'https://a.example/mcp' },
      b: { url: 'https://b2.example/mcp' },
      c: { url: 'https://c.example/mcp' },
    });
    expect(registry.reload()).toEqual(['b', 'c']);
    writeFileSync(file, '{"mcpServers": {"d": {"url": 5}}}');
    expect(() => registry.reload()).toThrow(
      'mcpServers.d.url must be an http:// or https:// URL, got the number 5.',
    );
    expect(registry.operatorServers().map((server) => server.name)).toEqual(['a', 'b', 'c']);
  });

  test('a user’s server never shadows an operator’s; a failing user source leaves the operator’s', async () => {
    const own: HttpMcpServerDeclaration[] = [
      { name: 'shared', transport: 'http', url: 'https://mine.example/mcp', headers: {} },
      { name: 'mine', transport: 'http', url: 'https://mine.example/mcp', headers: {} },
    ];
    const registry = new McpServerRegistry({
      operatorServers: [{ name: 'shared', transport: 'http', url: 'https://op.example/mcp', headers: {} }],
      userSource: {
        serversFor: async (userId) => (userId === 'broken' ? Promise.reject(new Error('no key')) : own),
      },
    });
    const set = await registry.serversFor('u');
    expect(
      set.servers.map((server) => [
        server.name,
        server.origin,
        server.transport === 'http' ? server.url : '',
      ]),
    ).toEqual([
      ['shared', 'operator', 'https://op.example/mcp'],
      ['mine', 'user', 'https://mine.example/mcp'],
    ]);
    expect(set.problems).toEqual([
      'Your MCP server "shared" is left out: the operator offers a server of that name.',
    ]);
    const broken = await registry.serversFor('broken');
    expect(broken.servers.map((server) => server.name)).toEqual(['shared']);
    expect(broken.problems).toEqual(['Your own MCP servers could not be loaded: no key']);
  });

  test('createExternalTools: reload forgets the servers that changed (what SIGHUP runs)', async () => {
    const workspaces = createTestWorkspaces();
    try {
      const file = join(directory, 'sighup.json');
      writeServers(file, { a: { url: 'http://10.0.0.1/mcp' } });
      const external = createExternalTools({
        environment: { MANGO_MCP_SERVERS: file },
        builtins: new ToolRegistry(),
        dataDirectory: workspaces.dataDirectory,
        workspaces: workspaces.service,
      });
      if (!external) throw new Error('no external tools');
      expect(
        (await external.source.serverStates('u')).servers.map((server) => [server.name, server.status]),
      ).toEqual([['a', 'failed']]);
      writeServers(file, { b: { url: 'http://10.0.0.2/mcp' } });
      expect(await external.reload()).toEqual(['a', 'b']);
      expect((await external.source.serverStates('u')).servers.map((server) => server.name)).toEqual(['b']);
      await external.close();
    } finally {
      workspaces.dispose();
    }
  });
});
