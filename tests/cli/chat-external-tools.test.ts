/**
 * `mango chat --user NAME` offers NAME's external MCP tools with the builtins, as NAME's chats do: a
 * real server-everything on stdio (in the shell sandbox) from the operator file, over a real SQLite
 * database. In operator mode (no `--user`) the builtins only.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliSandboxIds } from '../../src/cli/cli-sandbox-ids.ts';
import { createChatCommand } from '../../src/cli/commands/chat.ts';
import { runCli } from '../../src/cli/main.ts';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import { provideSandboxIds } from '../../src/sandbox/host-shell-sandbox.ts';
import { capturedIo } from '../helpers/captured-io.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';
import { EVERYTHING_SCRIPT, NODE_MODULES } from '../mcp-client/external-servers.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';

/** What `mango chat --user` says of its file tools where the sandbox can hold file workers. */
const WORKERS_LINE =
  "mango chat: File tools work in each user's sandbox: a file worker per user and reachable set, as the user's uid, seeing only what the call may reach.\n";

describeSandbox('mango chat with external MCP tools', () => {
  let handle: TestDatabase;
  let directory: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    // The sandbox uid passes through it to the user's workspace (the data directory is the server's).
    chmodSync(handle.config.workspacesDirectory, 0o711);
    directory = mkdtempSync(join(tmpdir(), 'mango-chat-external-'));
    const file = join(directory, 'servers.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          everything: { command: 'node', args: [EVERYTHING_SCRIPT, 'stdio'], packageDirectory: NODE_MODULES },
        },
      }),
    );
    env = {
      MANGO_DATA_DIR: handle.config.dataDirectory,
      MANGO_WORKSPACES_DIR: handle.config.workspacesDirectory,
      MANGO_MCP_SERVERS: file,
    };
    expect(await runCli(['user', 'add', 'nora'], capturedIo(directory, env).io)).toBe(0);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    rmSync(directory, { recursive: true, force: true });
  });

  async function chat(argv: string[], provider: ScriptedProvider, answers: string[] = []) {
    async function* lines() {
      yield* answers;
    }
    const command = createChatCommand({
      createProvider: () => provider,
      onInterrupt: () => () => {},
      interactive: false,
      stdinIsTerminal: true,
      readLines: lines,
    });
    const { io, written } = capturedIo(directory, env);
    // What `runCli` gives every command: its users' sandbox uids come from its database.
    const restore = provideSandboxIds(cliSandboxIds(io));
    try {
      const code = await command(['--provider', 'anthropic', '--model', 'claude-test', ...argv], io);
      return { code, ...written };
    } finally {
      restore();
    }
  }

  test('with --user the model is offered the user’s external tools, and a call runs after approval', async () => {
    const provider = new ScriptedProvider([
      toolCallsResponse([
        { id: 'c1', name: 'mcp__everything__echo', arguments: { message: 'from the CLI' } },
      ]),
      textResponse('Echoed.'),
    ]);
    const result = await chat(['--user', 'nora', '--message', 'echo it'], provider, ['y']);
    expect(result.stderr).toBe(WORKERS_LINE);
    expect(result.code).toBe(0);
    const offered = provider.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(offered).toContain('mcp__everything__echo');
    expect(offered).toContain('read_file');
    const output = provider.requests[1]?.history.find(
      (item): item is Extract<ConversationItem, { type: 'tool_result' }> => item.type === 'tool_result',
    );
    expect(output).toMatchObject({ callId: 'c1', ok: true });
    expect(output?.output).toContain('Echo: from the CLI');
    expect(result.stdout).toContain('Approve mcp__everything__echo');
    expect(result.stdout).toEndWith('Echoed.\n');
  }, 60_000);

  test('without --user (operator mode) only the builtins are offered', async () => {
    const provider = new ScriptedProvider([textResponse('Hi.')]);
    const result = await chat(['--message', 'hello'], provider);
    expect(result.code).toBe(0);
    const offered = provider.requests[0]?.tools.map((tool) => tool.name) ?? [];
    expect(offered.some((name) => name.startsWith('mcp__'))).toBe(false);
    expect(offered).toContain('read_file');
  });

  test('--enable takes an external tool of the user; in operator mode there is no such tool', async () => {
    const enabled = await chat(
      ['--user', 'nora', '--enable', 'mcp__everything__echo', '--message', 'x'],
      new ScriptedProvider([textResponse('-')]),
    );
    expect(enabled).toEqual({ code: 0, stdout: '-\n', stderr: WORKERS_LINE });
    await expect(
      chat(
        ['--enable', 'mcp__everything__echo', '--message', 'x'],
        new ScriptedProvider([textResponse('-')]),
      ),
    ).rejects.toThrow('--enable mcp__everything__echo: no such tool.');
  }, 60_000);
});
