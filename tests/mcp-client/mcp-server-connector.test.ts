/**
 * A stdio MCP server that cannot start in its sandbox is refused before it starts, with the cause and
 * the fix; its command is looked up on the PATH the sandbox gives it (the server's environment), not
 * on the Mango process's; and a program that exits during the handshake is reported with its stderr.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StdioMcpServerDeclaration } from '../../src/config/mcp-servers-file.ts';
import { createGuardedFetch } from '../../src/mcp-client/guarded-fetch.ts';
import { openStdioConnection } from '../../src/mcp-client/mcp-server-connector.ts';
import { mcpStateDirectoryIn } from '../../src/mcp-client/mcp-state-directory.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from '../sandbox/sandbox-host.ts';

/** A minimal MCP server on stdio, answering the handshake and an empty tool list. */
const TINY_SERVER = `#!/usr/bin/env node
let buffer = '';
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf('\\n')) !== -1) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id === undefined) continue;
    const result = message.method === 'initialize'
      ? { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'tiny', version: '1' } }
      : { tools: [] };
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }) + '\\n');
  }
});
`;

describeSandbox('a stdio MCP server that cannot start', () => {
  let sandbox: ReturnType<typeof createTestSandbox>;
  let layout: SandboxLayout;
  let packages: string;
  let hidden: string;

  function write(path: string, text: string, mode: number): string {
    writeFileSync(path, text, { mode });
    chmodSync(path, mode);
    return path;
  }

  beforeAll(async () => {
    sandbox = createTestSandbox();
    layout = await createSandboxLayout(sandbox);
    packages = join(layout.base, 'packages');
    hidden = layout.elsewhere;
    mkdirSync(packages, { mode: 0o755 });
    chmodSync(hidden, 0o755);
    write(join(packages, 'tiny-server'), TINY_SERVER, 0o755);
    write(join(packages, 'not-executable'), TINY_SERVER, 0o644);
    write(join(packages, 'hidden-interpreter'), `#!${hidden}/node\n`, 0o755);
    write(join(hidden, 'node'), '#!/bin/sh\nexec /usr/bin/node "$@"\n', 0o755);
    write(join(hidden, 'hidden-node'), '#!/bin/sh\nexec /usr/bin/node "$@"\n', 0o755);
    write(join(packages, 'env-hidden'), '#!/usr/bin/env hidden-node\n', 0o755);
    write(
      join(packages, 'dies'),
      '#!/bin/sh\necho "config file /etc/tiny.conf is missing" >&2\nexit 3\n',
      0o755,
    );
    write(join(hidden, 'outside-server'), TINY_SERVER, 0o755);
  }, 30_000);
  afterAll(() => {
    layout.remove();
    sandbox.dispose();
  });

  function declaration(
    command: string,
    extra: Partial<StdioMcpServerDeclaration> = {},
  ): StdioMcpServerDeclaration {
    return { name: 'tiny', transport: 'stdio', command, args: [], env: {}, network: 'none', ...extra };
  }

  function open(server: StdioMcpServerDeclaration, within = sandbox) {
    return openStdioConnection(
      server,
      'alice',
      layout.reachable,
      {
        stateDirectory: mcpStateDirectoryIn(layout.workspaces),
        sandbox: () => within,
        fetch: createGuardedFetch({ allowPrivate: false }),
        connectTimeoutMs: 20_000,
      },
      {},
    );
  }

  async function failure(
    server: StdioMcpServerDeclaration,
  ): Promise<{ classification: unknown; message: string }> {
    const error = await open(server).then(
      async (connection) => {
        await connection.close();
        throw new Error('the server started');
      },
      (caught: unknown) => caught as { classification: unknown; message: string },
    );
    return { classification: error.classification, message: error.message };
  }

  test('a command on no directory of the PATH it gets', async () => {
    const path = (sandbox.programView?.({}).searchPath ?? '') || 'empty';
    expect(await failure(declaration('no-such-mcp-program'))).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: its command "no-such-mcp-program" is not on the PATH it gets (${path}): install it in one of those directories, give its absolute path, or set PATH in its env.`,
    });
  });

  test('a command that does not exist, and one that is not executable', async () => {
    expect(await failure(declaration(join(packages, 'missing'), { packageDirectory: packages }))).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: its command ${packages}/missing does not exist.`,
    });
    expect(
      await failure(declaration(join(packages, 'not-executable'), { packageDirectory: packages })),
    ).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: its command ${packages}/not-executable is not executable: make it so (chmod +x ${packages}/not-executable).`,
    });
  });

  test('a program, or its interpreter, outside every directory the sandbox shows', async () => {
    const system = sandbox.programView?.({}).systemDirectories ?? [];
    const visible = (packageDirectory: string) =>
      [...system, packageDirectory, "and the chat's reachable set"].join(', ');
    const fix = 'set packageDirectory to a directory holding it, or install it under /usr.';
    expect(await failure(declaration(join(hidden, 'outside-server')))).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: its command ${hidden}/outside-server lies outside every directory the sandbox shows (${visible('no packageDirectory')}); ${fix}`,
    });
    expect(
      await failure(declaration(join(packages, 'hidden-interpreter'), { packageDirectory: packages })),
    ).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: the interpreter of ${packages}/hidden-interpreter (its #! line) ${hidden}/node lies outside every directory the sandbox shows (${visible(`the packageDirectory ${packages}`)}); ${fix}`,
    });
    const envServer = declaration(join(packages, 'env-hidden'), {
      packageDirectory: packages,
      env: { PATH: `${hidden}:/usr/bin:/bin` },
    });
    expect(await failure(envServer)).toEqual({
      classification: 'execution_error',
      message: `The MCP server "tiny" cannot start: the interpreter of ${packages}/env-hidden (#!/usr/bin/env hidden-node), found at ${hidden}/hidden-node lies outside every directory the sandbox shows (${visible(`the packageDirectory ${packages}`)}); ${fix}`,
    });
  });

  test('the command is looked up on the PATH of the sandbox that runs it, not the process', async () => {
    // The server's environment puts the package directory on PATH; this process's PATH does not have it.
    const own = createTestSandbox({ environment: { PATH: `${packages}:/usr/bin:/bin` } });
    try {
      const connection = await open(declaration('tiny-server', { packageDirectory: packages }), own);
      try {
        expect((await connection.listTools()).tools).toEqual([]);
      } finally {
        await connection.close();
      }
    } finally {
      own.dispose();
    }
  }, 30_000);

  test('a program that exits during the handshake is reported with what it wrote on stderr', async () => {
    const { classification, message } = await failure(
      declaration(join(packages, 'dies'), { packageDirectory: packages }),
    );
    expect(classification).toBe('execution_error');
    expect(message).toStartWith('The MCP server "tiny" could not be connected: ');
    expect(message).toEndWith(' (its last output: config file /etc/tiny.conf is missing)');
  }, 30_000);
});
