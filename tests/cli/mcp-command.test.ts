import { afterAll, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type CliDependencies, openCliDependencies } from '../../src/cli/cli-dependencies.ts';
import { createMcpCommand } from '../../src/cli/commands/mcp.ts';
import { resetImageGenerationConfiguration } from '../../src/images/image-generation-config.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { seedCliDatabase } from '../helpers/seed-cli-database.ts';

const temporary = await mkdtemp(join(tmpdir(), 'mango-mcp-command-'));
afterAll(async () => {
  // The command configured generate_image for its session; later test files start from the env.
  resetImageGenerationConfiguration();
  await rm(temporary, { recursive: true, force: true });
});

/** The client end of the command's stdin/stdout, as an SDK transport. */
class StreamPairTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  constructor(
    private readonly toServer: PassThrough,
    private readonly fromServer: PassThrough,
  ) {}
  async start(): Promise<void> {
    this.fromServer.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message; message = this.#buffer.readMessage()) {
        this.onmessage?.(message);
      }
    });
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.toServer.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.toServer.end();
    this.onclose?.();
  }
}

test('the command serves through its dependencies, keeps console output off stdout, and ends with stdin', async () => {
  const dataDirectory = join(temporary, 'data');
  await seedCliDatabase(dataDirectory, { users: ['alice'] });
  let dependencies: CliDependencies | undefined;
  let closedDependencies = 0;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const rawStdout: string[] = [];
  stdout.on('data', (chunk: Buffer) => rawStdout.push(chunk.toString('utf8')));
  const command = createMcpCommand(
    async (env, cwd) => {
      const opened = await openCliDependencies(env, cwd);
      dependencies = {
        ...opened,
        close: async () => {
          closedDependencies += 1;
          await opened.close();
        },
      };
      return dependencies;
    },
    { stdin, stdout },
  );

  let stderr = '';
  // No --cwd: the session works in alice's personal workspace.
  const exitCode = command(['--user', 'alice'], {
    stdout: () => {
      throw new Error('mango mcp must not write to io.stdout');
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: temporary,
    env: { MANGO_DATA_DIR: dataDirectory, MANGO_WORKSPACES_DIR: join(temporary, 'workspaces') },
  });

  const client = new Client({ name: 'test', version: '1' });
  await client.connect(new StreamPairTransport(stdin, stdout));
  const changed = Promise.withResolvers<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.resolve());

  expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('get_current_datetime');
  console.log('a stray log while serving');
  const alice = await dependencies!.users.findByName('alice');
  await dependencies!.toolSettings.put(alice!.id, 'get_current_datetime', { enabled: false });
  dependencies!.toolSettingsEvents.emit(alice!.id, 'get_current_datetime');
  await changed.promise;
  // Other builtins (the file tools) stay listed; the disabled one is gone.
  expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('get_current_datetime');

  await client.close();
  expect(await exitCode).toBe(0);
  expect(closedDependencies).toBe(1);
  expect(stderr).toContain('a stray log while serving');
  for (const line of rawStdout.join('').split('\n').filter(Boolean)) {
    expect(JSON.parse(line).jsonrpc).toBe('2.0');
  }
});
