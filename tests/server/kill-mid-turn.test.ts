/**
 * `kill -9` of a real `mango serve` process in the middle of a chat turn (a crash mid-turn
 * loses at most the call in flight and the next turn replays a consistent history), on SQLite — the
 * one-server backend. After the restart the chat holds the completed items, is not left busy, and the
 * next turn's request to the model carries the user text, the tool call and its result.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { readSseEvents } from '../helpers/sse-client.ts';

let replay: ReplayServer;
let root: string;

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-kill-mid-turn-')));
  await mkdir(join(root, 'project'));
}, 30_000);

afterAll(async () => {
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('kill -9 mid-turn: completed items kept, chat not busy after restart, next turn replays them', async () => {
  const env = {
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  };
  const first = await startServerProcess(env);
  const headers = { authorization: `Bearer ${first.token}` };
  const created = await fetch(`${first.url}/api/chats`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      provider: 'openai-compatible',
      model: 'm',
    }),
  });
  const chatId = ((await created.json()) as { id: string }).id;
  const [roleChunk, textChunk] = chatBody({ text: 'Half an answ' }).split(/(?<=\n\n)/);
  replay.enqueue(
    {
      body: chatBody({
        calls: [{ id: 'c1', name: 'get_current_datetime', fragments: ['{"timezone":"UTC"}'] }],
      }),
    },
    { chunks: [roleChunk!, textChunk!], ending: 'hang' },
  );
  const turn = await fetch(`${first.url}/api/chats/${chatId}/turns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ message: 'What time is it?' }),
  });
  for await (const event of readSseEvents(turn)) {
    if (event.type === 'text_delta') break; // the second model call is streaming: crash now
  }
  first.child.kill('SIGKILL');
  await first.exited;

  const second = await startServerProcess(env);
  try {
    const shown = (await (await fetch(`${second.url}/api/chats/${chatId}`, { headers })).json()) as {
      messages: { item: { type: string } }[];
    };
    expect(shown.messages.map((message) => message.item.type)).toEqual([
      'user_text',
      'tool_call',
      'tool_result',
    ]);
    replay.enqueue({
      body: chatBody({ text: 'Noon.' }),
      expectRequest: (request) => {
        const messages = (request.body as { messages: { role: string; tool_call_id?: string }[] }).messages;
        expect(messages.map((message) => message.role)).toEqual([
          'system',
          'user',
          'assistant',
          'tool',
          'user',
        ]);
        expect(messages[3]!.tool_call_id).toBe('c1');
      },
    });
    const next = await fetch(`${second.url}/api/chats/${chatId}/turns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ message: 'Again?' }),
    });
    expect(next.status).toBe(200);
    const events: Record<string, unknown>[] = [];
    for await (const event of readSseEvents(next)) events.push(event);
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(replay.failures).toEqual([]);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
}, 60_000);
