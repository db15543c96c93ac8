/**
 * A client that stops reading a long answer (16 MiB, streamed in 64 KiB pieces) against a real
 * `mango serve` process. The turn runs to its end and is stored whole; the stalled clients (the one
 * that started it and three followers: processes that never read, with a small receive buffer) are
 * let go without stopping the turn, each dropped once it is more than 1 MiB behind or, when Bun took
 * the rest into its own buffer, closed by the idle timeout, at least one by the 1 MiB rule; a client
 * that reads gets all of it. The server's RSS with and without the stalled clients is printed for the report.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatApi } from '../helpers/chat-api-client.ts';
import { type ReplayServer, startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { type ServerProcess, startServerProcess } from '../helpers/server-process.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { waitUntil } from '../helpers/wait-until.ts';

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

/**
 * A client that sends its request and then reads nothing until released: a Python process holding the
 * connection without reading it. Its receive buffer is fixed at 16 KiB (which also turns off the
 * kernel's autotuning, which on loopback lets an unread socket absorb up to 32 MiB); a JavaScript
 * socket would not do, as it keeps reading into memory even when paused.
 */
interface StalledClient {
  /** Lets the client read what is left; resolves with everything it received once the server closed. */
  drain(): Promise<string>;
}

const STALLED_CLIENT = `
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
s.connect((sys.argv[1], int(sys.argv[2])))
s.sendall(sys.argv[3].encode())
sys.stdin.readline()
while True:
    try:
        chunk = s.recv(65536)
    except ConnectionResetError:
        break
    if not chunk:
        break
    sys.stdout.buffer.write(chunk)
`;

function stalledRequest(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): StalledClient {
  const { hostname, port } = new URL(url);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const request =
    `${method} ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
  const child = Bun.spawn(['python3', '-c', STALLED_CLIENT, hostname, port, request], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  return {
    drain: async () => {
      child.stdin.write('\n');
      await child.stdin.end();
      const text = await new Response(child.stdout).text();
      await child.exited;
      return text;
    },
  };
}

beforeAll(async () => {
  replay = startReplayServer();
  root = await realpath(await mkdtemp(join(tmpdir(), 'mango-stalled-client-')));
  server = await startServerProcess({
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
  });
}, 30_000);

afterAll(async () => {
  server.child.kill('SIGKILL');
  await server.exited;
  await replay.close();
  await rm(root, { recursive: true, force: true });
});

test('stalled clients are let go (at least one dropped past 1 MiB), the 16 MiB turn is stored whole, a reader gets all of it', async () => {
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

  // Every stalled client, the one that started the turn included: Bun sometimes takes the rest of a
  // response into its own buffer even though the socket does not drain (then our layer cannot see the
  // client lag; it happened to the starter in about half of the full-suite runs on a loaded machine),
  // and such a connection is closed by the server's idle timeout instead. Either way the server lets go
  // of every stalled client: each drain ends because the server closed the connection. A client dropped
  // by the 1 MiB rule got no `done`, and less than half of the answer (the 1 MiB plus what the kernel's
  // send buffer took); at least one of the four must be dropped that way, or the rule was not shown.
  const [starter] = stalled;
  let droppedByLag = 0;
  let received = '';
  for (const client of stalled) {
    const text = await client.drain();
    if (client === starter) received = text;
    expect(text.startsWith('HTTP/1.1 200')).toBe(true);
    if (!text.includes('"type":"done"')) {
      droppedByLag += 1;
      expect(text.length).toBeLessThan(answer.text.length / 2);
    }
  }
  expect(droppedByLag).toBeGreaterThanOrEqual(1);

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
    `[figures] 16 MiB answer: server RSS ${(rssWithoutStalled / 1024).toFixed(1)} MiB after the control turn, peak ${(peakRss / 1024).toFixed(1)} MiB with 4 stalled clients (${((peakRss - rssWithoutStalled) / 1024 / 4).toFixed(1)} MiB per stalled client at most); the starter received ${(received.length / 1048576).toFixed(2)} MiB; ${droppedByLag} of 4 stalled clients dropped by lag, the others closed by the idle timeout`,
  );
}, 120_000);
