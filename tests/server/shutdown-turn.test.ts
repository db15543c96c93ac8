/**
 * Graceful shutdown with a chat turn in flight (docs/turns.md, "Cancelling"):
 * `stop()` cancels running turns instead of waiting for them, so the client reads `done{cancelled}`,
 * the turn's shell is killed, the history is persisted before the database closes, and `stop()` does
 * not sit out its whole drain budget.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmod, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../src/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { waitUntil } from '../helpers/wait-until.ts';

let replay: ReplayServer;
let root: string;

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-shutdown-turn-')));
  // The shell sandbox's uid must be able to reach the working directory (mkdtemp makes it 0700).
  await chmod(root, 0o755);
  await mkdir(join(root, 'project'));
}, 30_000);

afterAll(async () => {
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('stop() during a shell call: done{cancelled}, shell killed, history kept, no 10 s wait', async () => {
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDirectory: join(root, 'data'),
    workspacesDirectory: join(root, 'workspaces'),
    databaseUrl: undefined,
    shutdownTimeoutMs: 10_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
  };
  const server: RunningServer = await startServer(config, {
    print: () => {},
    env: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
  });
  const { token, user } = await server.deps.users.create('alice');
  await server.deps.workspaces.grant(user.id, join(root, 'project'), false);
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // The shell's lifecycle is the subject here; approvals are tested in chat-approvals.test.ts.
  expect(
    (await api('PUT', '/api/settings/tools/bash', { enabled: true, parameters: { approval: 'never' } }))
      .status,
  ).toBe(200);
  const created = await api('POST', '/api/chats', {
    provider: 'openai-compatible',
    model: 'm',
    workingDirectory: join(root, 'project'),
  });
  const chatId = ((await created.json()) as { id: string }).id;
  const marker = `40.${String(Date.now() % 100_000).padStart(5, '0')}7`;
  replay.enqueue({
    body: chatBody({
      calls: [{ id: 's1', name: 'bash', fragments: [JSON.stringify({ command: `sleep ${marker}` })] }],
    }),
  });
  const response = await api('POST', `/api/chats/${chatId}/turns`, { message: 'Wait.' });
  const events: Record<string, unknown>[] = [];
  let stopped: Promise<void> | undefined;
  let stopStartedAt = 0;
  for await (const event of readSseEvents(response)) {
    events.push(event);
    if (event.type === 'tool_call_completed') {
      expect(await waitUntil(async () => (await liveProcessesWith(marker)).length > 0, 15_000)).toBe(true);
      stopStartedAt = performance.now();
      stopped = server.stop();
    }
  }
  await stopped;
  expect(performance.now() - stopStartedAt).toBeLessThan(5_000);
  expect(events.at(-1)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
  expect(await liveProcessesWith(marker)).toEqual([]);
  const database = await openDatabase(config);
  try {
    const messages = await new DatabaseChatRepository(database).listMessages(chatId);
    expect(messages.map((message) => message.item.type)).toEqual(['user_text', 'tool_call', 'tool_result']);
    expect(messages[2]!.item).toMatchObject({ callId: 's1' });
  } finally {
    await database.close();
  }
}, 30_000);
