/**
 * A client that stops reading a long answer (16 MiB, streamed in 64 KiB pieces) against a real
 * `mango serve` process. The turn runs to its end and is stored whole; each stalled client (the one
 * that started the turn and three that attached to it, all on raw sockets that never read) is dropped
 * once it falls more than 1 MiB behind, without stopping the turn; a client that reads gets all of it.
 * The server's RSS with and without the stalled clients is printed for the report.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatApi, waitUntil } from '../helpers/chat-api-client.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { readSseEvents } from '../helpers/sse-client.ts';

const PIECE = 64 * 1024;
const PIECES = 256;
let replay: ReplayServer;
let root: string;
let server: ServerProcess;

function rssKib(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
}

/** A Chat Completions stream of PIECES pieces of PIECE letters each (piece i repeats letter i % 26). */
function longAnswer(): { chunks: string[]; text: string } {
  const [role, content, ...rest] = chatBody({ text: 'X' }).split(/(?<=\n\n)/);
  const pieces = Array.from({ length: PIECES }, (_, index) =>
    String.fromCharCode(97 + (index % 26)).repeat(PIECE),
  );
  return {
    chunks: [
      role!,
      ...pieces.map((piece) => content!.replace('"content":"X"', `"content":"${piece}"`)),
      ...rest,
    ],
    text: pieces.join(''),
  };
}

/** Sends a request on a raw socket and never reads: the kernel buffers fill, then the server's writes stall. */
function stalledRequest(url: string, token: string, method: string, path: string, body?: unknown): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const payload = body === undefined ? '' : JSON.stringify(body);
  socket.write(
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`,
  );
  socket.pause();
  return socket;
}

/** Resumes a stalled socket and reads what is left until the server closes it. */
function drain(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('close', () => resolve(text));
    socket.resume();
  });
}

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-stalled-client-')));
  server = await startServerProcess({
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACE_ROOTS: root,
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  });
});

afterAll(async () => {
  server.child.kill('SIGKILL');
  await server.exited;
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('stalled clients are dropped, the 16 MiB turn completes and is stored whole, a reader gets all of it', async () => {
  const api = chatApi(server.url, server.token!);
  const pid = server.child.pid;

  // Control: the same answer with one client that reads everything.
  const control = longAnswer();
  const controlChat = await api.createChat();
  replay.enqueue({ chunks: control.chunks });
  let controlText = '';
  for await (const event of readSseEvents(
    await api.call('POST', `/api/chats/${controlChat}/turns`, { message: 'Long.' }),
  )) {
    if (event.type === 'text_delta') controlText += event.delta;
  }
  expect(controlText.length).toBe(PIECE * PIECES);
  const rssWithoutStalled = rssKib(pid);

  const answer = longAnswer();
  const chatId = await api.createChat();
  replay.enqueue({ chunks: answer.chunks });
  const stalled = [
    stalledRequest(server.url, server.token!, 'POST', `/api/chats/${chatId}/turns`, { message: 'Long.' }),
  ];
  expect(
    await waitUntil(
      async () => (await api.json('GET', `/api/chats/${chatId}/turns/current`)).status === 200,
      10_000,
    ),
  ).toBe(true);
  for (let index = 0; index < 3; index++) {
    stalled.push(
      stalledRequest(server.url, server.token!, 'GET', `/api/chats/${chatId}/turns/current/events`),
    );
  }
  let peakRss = 0;
  expect(
    await waitUntil(async () => {
      peakRss = Math.max(peakRss, rssKib(pid));
      const record = await api.json('GET', `/api/chats/${chatId}/turns/current`);
      return (record.body as { state: string }).state === 'completed';
    }, 60_000),
  ).toBe(true);
  peakRss = Math.max(peakRss, rssKib(pid));

  const items = (await api.items(chatId)) as { type: string; text: string }[];
  expect(items.map((item) => item.type)).toEqual(['user_text', 'assistant_text']);
  expect(items[1]!.text === answer.text).toBe(true);

  for (const socket of stalled) {
    const received = await drain(socket);
    expect(received.startsWith('HTTP/1.1 200')).toBe(true);
    // Dropped before the end: the stream stops without its done event.
    expect(received.includes('"type":"done"')).toBe(false);
    expect(received.length).toBeLessThan(answer.text.length);
  }

  let replayed = '';
  let last: Record<string, unknown> | undefined;
  for await (const event of readSseEvents(
    await api.call('GET', `/api/chats/${chatId}/turns/current/events`),
  )) {
    if (event.type === 'text_delta') replayed += event.delta;
    last = event;
  }
  expect(replayed === answer.text).toBe(true);
  expect(last).toEqual({ type: 'done', reason: 'completed' });
  console.log(
    `[figures] 16 MiB answer: server RSS ${(rssWithoutStalled / 1024).toFixed(1)} MiB after the control turn, peak ${(peakRss / 1024).toFixed(1)} MiB with 4 stalled clients (${((peakRss - rssWithoutStalled) / 1024 / 4).toFixed(1)} MiB per stalled client at most)`,
  );
}, 120_000);
