import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/config-error.ts';
import { parseMcpServersFile, readMcpServersFile } from '../../src/config/mcp-servers-file.ts';

const directory = mkdtempSync(join(tmpdir(), 'mango-mcp-servers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function errorOf(document: unknown): string {
  try {
    parseMcpServersFile(typeof document === 'string' ? document : JSON.stringify(document), 'servers.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe('MANGO_MCP_SERVERS');
    return (error as Error).message.replace('MANGO_MCP_SERVERS file servers.json: ', '');
  }
  throw new Error('parsed without an error');
}

describe('parseMcpServersFile', () => {
  test('reads stdio and HTTP servers with their defaults', () => {
    const servers = parseMcpServersFile(
      JSON.stringify({
        mcpServers: {
          memory: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-memory'],
            env: { LOG_LEVEL: 'info' },
            stateVariable: 'MEMORY_FILE_PATH',
            stateFile: 'memory.jsonl',
            packageDirectory: '/opt/mcp/memory',
          },
          fetcher: { command: '/usr/bin/fetcher', network: 'host' },
          remote: {
            type: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer x' },
          },
          implicit: { url: 'https://other.example.com/mcp' },
        },
      }),
      'servers.json',
    );
    expect(servers).toEqual([
      {
        name: 'memory',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@modelcontextprotocol/server-memory'],
        env: { LOG_LEVEL: 'info' },
        network: 'none',
        stateVariable: 'MEMORY_FILE_PATH',
        stateFile: 'memory.jsonl',
        packageDirectory: '/opt/mcp/memory',
      },
      {
        name: 'fetcher',
        transport: 'stdio',
        command: '/usr/bin/fetcher',
        args: [],
        env: {},
        network: 'host',
      },
      {
        name: 'remote',
        transport: 'http',
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer x' },
      },
      { name: 'implicit', transport: 'http', url: 'https://other.example.com/mcp', headers: {} },
    ]);
  });

  test.each([
    ['not JSON', '{', 'is not valid JSON'],
    ['a list at the top', [], 'the document must be an object {"mcpServers": {…}}, got an array.'],
    [
      'another top-level key',
      { mcpServers: {}, servers: {} },
      'the document has unknown field "servers"; the fields are mcpServers.',
    ],
    ['no mcpServers', {}, 'mcpServers must be an object of servers by name, got the value undefined.'],
    [
      'a name with a dot',
      { mcpServers: { 'my.server': { command: 'x' } } },
      'a server name must be 1–32 letters, digits, _ or -, starting with a letter or digit, without "__" or a final "_", got the string "my.server".',
    ],
    ['a name with a double underscore', { mcpServers: { a__b: { command: 'x' } } }, 'got the string "a__b".'],
    ['a name ending in an underscore', { mcpServers: { a_: { command: 'x' } } }, 'got the string "a_".'],
    [
      'a name of 33 characters',
      { mcpServers: { ['x'.repeat(33)]: { command: 'x' } } },
      `got the string "${'x'.repeat(33)}".`,
    ],
    [
      'a missing command',
      { mcpServers: { s: { args: [] } } },
      'mcpServers.s.command must be a non-empty string, got the value undefined.',
    ],
    [
      'args not strings',
      { mcpServers: { s: { command: 'x', args: [1] } } },
      'mcpServers.s.args must be an array of strings, got an array.',
    ],
    [
      'a bad network',
      { mcpServers: { s: { command: 'x', network: 'lan' } } },
      'mcpServers.s.network must be "none" or "host", got the string "lan".',
    ],
    [
      'an unknown stdio key',
      { mcpServers: { s: { command: 'x', cwd: '/tmp' } } },
      'mcpServers.s has unknown field "cwd"; the fields are type, command, args, env, network, stateVariable, stateFile, packageDirectory.',
    ],
    [
      'a secret env value of the wrong type, not quoted',
      { mcpServers: { s: { command: 'x', env: { TOKEN: 5 } } } },
      'mcpServers.s.env.TOKEN must be a string, got another value (not shown: it may be a secret).',
    ],
    [
      'stateFile without stateVariable',
      { mcpServers: { s: { command: 'x', stateFile: 'a.json' } } },
      'mcpServers.s.stateFile must be given together with stateVariable, got the string "a.json".',
    ],
    [
      'a stateFile with a path',
      { mcpServers: { s: { command: 'x', stateVariable: 'F', stateFile: '../a' } } },
      'mcpServers.s.stateFile must be a plain file name (letters, digits, . _ -), got the string "../a".',
    ],
    [
      'a relative packageDirectory',
      { mcpServers: { s: { command: 'x', packageDirectory: 'node_modules' } } },
      'mcpServers.s.packageDirectory must be an absolute path, got the string "node_modules".',
    ],
    [
      'an ftp URL',
      { mcpServers: { s: { url: 'ftp://x/' } } },
      'mcpServers.s.url must be an http:// or https:// URL, got the string "ftp://x/".',
    ],
    [
      'a URL with a password',
      { mcpServers: { s: { url: 'https://u:p@x/' } } },
      'mcpServers.s.url must be a URL without user name or password (use headers), got another value (not shown: it may be a secret).',
    ],
    [
      'the SSE transport',
      { mcpServers: { s: { type: 'sse', url: 'https://x/' } } },
      'mcpServers.s.type must be "stdio" or "http" (the old SSE transport is not supported), got the string "sse".',
    ],
    [
      'a command on an HTTP server',
      { mcpServers: { s: { type: 'http', url: 'https://x/', command: 'y' } } },
      'mcpServers.s has unknown field "command"; the fields are type, url, headers.',
    ],
  ])('refuses %s', (_case, document, message) => {
    expect(errorOf(document)).toContain(message);
  });
});

describe('readMcpServersFile', () => {
  test('reads a file, and names a file it cannot read', () => {
    const path = join(directory, 'servers.json');
    writeFileSync(path, JSON.stringify({ mcpServers: { a: { command: '/bin/true' } } }));
    expect(readMcpServersFile(path).map((server) => server.name)).toEqual(['a']);
    expect(() => readMcpServersFile(join(directory, 'missing.json'))).toThrow(
      `MANGO_MCP_SERVERS names ${join(directory, 'missing.json')}, which cannot be read: ENOENT`,
    );
  });
});
