/**
 * `mango chat` as registered in the CLI (`runCli`): the real provider registry built from the
 * command's environment, the Chat Completions adapter pointed at the replay server, the real `grep`.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';

let replay: ReplayServer;
let directory: string;

beforeAll(async () => {
  replay = startReplayServer();
  directory = await realpath(await mkdtemp(join(tmpdir(), 'mango-cli-chat-')));
  await writeFile(join(directory, 'notes.txt'), 'TODO: register the chat command\n');
}, 30_000);
afterAll(async () => {
  await replay.close();
  await rm(directory, { recursive: true, force: true });
});

function run(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const exit = runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: directory,
    env,
  });
  return exit.then((code) => ({ code, stdout, stderr }));
}

test('mango chat runs a turn against the provider configured by the environment', async () => {
  replay.enqueue(
    { body: chatBody({ calls: [{ id: 'g1', name: 'grep', fragments: ['{"pattern":"TODO","path":"."}'] }] }) },
    { body: chatBody({ text: 'notes.txt has the TODO.' }) },
  );
  const result = await run(
    [
      'chat',
      '--provider',
      'openai-compatible',
      '--model',
      'm',
      '--cwd',
      directory,
      '--message',
      'Find TODOs',
    ],
    { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`, MANGO_DATA_DIR: join(directory, 'data') },
  );
  expect(replay.failures).toEqual([]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('grep');
  expect(result.stdout).toContain('notes.txt has the TODO.');
});

test('mango chat with an unconfigured provider exits 1 naming the missing variable', async () => {
  const result = await run(['chat', '--provider', 'anthropic', '--model', 'm', '--message', 'hi'], {});
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(
    'mango chat: provider "anthropic" is not available: ANTHROPIC_API_KEY is not set.\n',
  );
});
