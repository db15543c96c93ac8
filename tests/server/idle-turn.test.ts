/**
 * A turn whose model (or tool) is silent for longer than the server's idle timeout: Bun.serve closes a
 * connection idle for `idleTimeout` seconds, so the turn stream must send keep-alive comments inside
 * it, or the client's turn is cut and cancelled (a reasoning model, a long shell command, an image).
 * The idle timeout is shortened to 6 s here (Bun checks idle sockets on a 4 s tick, so much shorter
 * timeouts are not exact); the model stays silent for 9 s.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { holdsFor } from '../helpers/wait-until.ts';

let replay: ReplayServer;
let root: string;
let server: RunningServer;

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-idle-turn-')));
  server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDirectory: join(root, 'data'),
      workspacesDirectory: join(root, 'workspaces'),
      databaseUrl: undefined,
      shutdownTimeoutMs: 2_000,
      maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
      idleTimeoutSeconds: 6,
    },
    {
      print: () => {},
      env: { OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1` },
    },
  );
}, 30_000);

afterAll(async () => {
  await server.stop();
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('a model silent for longer than the idle timeout: the stream stays open (keep-alives) and ends on cancel', async () => {
  const { token } = await server.deps.users.create('alice');
  const headers = { authorization: `Bearer ${token}` };
  const created = await fetch(`${server.url}/api/chats`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ provider: 'openai-compatible', model: 'm' }),
  });
  const chatId = ((await created.json()) as { id: string }).id;
  replay.enqueue({ chunks: [], ending: 'hang' });
  const response = await fetch(`${server.url}/api/chats/${chatId}/turns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ message: 'Think hard.' }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    ended = true;
  })();
  // What did not happen: the stream was not cut for well past the idle timeout and Bun's 4 s tick.
  expect(await holdsFor(() => !ended, 9_000)).toBe(true);
  const cancel = await fetch(`${server.url}/api/chats/${chatId}/cancel`, { method: 'POST', headers });
  expect(await cancel.json()).toEqual({ cancelled: true });
  await reading;
  expect(text.startsWith(': turn started\n\n: keep-alive\n\n')).toBe(true);
  expect(text).toContain('data: {"type":"done","reason":"cancelled"');
}, 20_000);
