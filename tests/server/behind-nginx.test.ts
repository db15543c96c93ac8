/**
 * Two real `mango serve` processes on one PostgreSQL database and one data and workspaces directory,
 * behind a real nginx running the configuration of docs/operating.md ("Behind nginx"): round-robin,
 * no stickiness for the API, `/mcp` to the first instance. Through nginx:
 * - consecutive API requests alternate between the instances;
 * - a turn's events reach the client while the model is still mid-answer; the instance sends
 *   `X-Accel-Buffering: no` (nginx's buffering off for the stream whatever the configuration says),
 *   which nginx consumes;
 * - a client whose connection is cut mid-turn re-attaches through the other instance and gets the rest;
 * - an approval asked by a turn on one instance is answered through the other;
 * - a file uploaded through one instance is downloaded through both;
 * - an image made through MCP (every MCP request on the first instance) is fetched through both;
 * - MCP's event streams carry `X-Accel-Buffering: no` too (the SDK's transport sets it).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type ApprovalServers, startApprovalServers, waitForQuestion } from '../helpers/approval-servers.ts';
import { type ChatApi, chatApi } from '../helpers/chat-api-client.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';
import { type NginxProxy, startNginxProxy } from '../helpers/nginx-proxy.ts';
import { PNG_BYTES, type ReplayImageServer, startReplayImageServer } from '../helpers/replay-image-server.ts';
import { chatBody, chatTextDeltasBody } from '../helpers/scripted-provider-streams.ts';
import { collectSseEvents, readSseEvents } from '../helpers/sse-client.ts';

let images: ReplayImageServer;
let setup: ApprovalServers;
let proxy: NginxProxy;
let viaNginx: ChatApi;
/** `host:port` of the first and the second instance, as nginx names them in `x-test-upstream`. */
let first: string;
let second: string;

beforeAll(async () => {
  images = startReplayImageServer(() => ({ kind: 'image' }));
  setup = await startApprovalServers('postgres', 10_000, {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: images.openaiBaseURL,
  });
  proxy = await startNginxProxy(setup.servers[0].url, setup.servers[1].url);
  viaNginx = chatApi(proxy.url, setup.token);
  [first, second] = setup.servers.map((server) => new URL(server.url).host) as [string, string];
  // `locked` (a test tool that cannot be disabled) asks before each call.
  const settings = await setup.a.json('PUT', '/api/settings/tools/locked', {
    parameters: { approval: 'always' },
  });
  expect(settings.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await setup?.close();
  await images?.stop();
}, 30_000);

const upstreamOf = (response: Response) => response.headers.get('x-test-upstream');
const otherThan = (upstream: string | null) => (upstream === first ? second : first);

/** A model answer in SSE chunks (one event each) held after `afterChunks` until `release()`. */
function heldAnswer(body: string, afterChunks: number) {
  let release = () => {};
  const until = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { step: { chunks: body.split(/(?<=\n\n)/), pause: { afterChunks, until } }, release };
}

test('consecutive API requests alternate between the two instances', async () => {
  const upstreams: (string | null)[] = [];
  for (let index = 0; index < 4; index++) {
    const response = await viaNginx.call('GET', '/api/chats');
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    upstreams.push(upstreamOf(response));
  }
  expect([upstreams[0], upstreams[1]].sort()).toEqual([first, second].sort());
  expect(upstreams.slice(2)).toEqual(upstreams.slice(0, 2));
}, 30_000);

test('the instance marks a turn stream X-Accel-Buffering: no; nginx consumes the header', async () => {
  const direct = setup.a;
  const chatId = await direct.createChat();
  setup.replay.enqueue({ body: chatBody({ text: 'Direct.' }) });
  const response = await direct.call('POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(response.headers.get('x-accel-buffering')).toBe('no');
  expect((await collectSseEvents(response)).at(-1)).toEqual({ type: 'done', reason: 'completed' });

  const reattached = await viaNginx.call('GET', `/api/chats/${chatId}/turns/current/events`);
  expect(reattached.status).toBe(200);
  expect(reattached.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(reattached.headers.get('x-accel-buffering')).toBeNull();
  expect((await collectSseEvents(reattached)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
}, 30_000);

test('a turn streams through nginx event by event, while the model is still answering', async () => {
  const chatId = await viaNginx.createChat();
  // Two chunks (role, "Hel") then the answer waits: "Hel" must reach the client before the rest exists.
  const held = heldAnswer(chatTextDeltasBody(['Hel', 'lo', ' there']), 2);
  setup.replay.enqueue(held.step);
  const response = await viaNginx.call('POST', `/api/chats/${chatId}/turns`, { message: 'Greet me.' });
  expect(response.status).toBe(200);
  const events = readSseEvents(response);
  try {
    expect((await events.next()).value).toEqual({ type: 'text_delta', delta: 'Hel' });
  } finally {
    held.release();
  }
  const rest: Record<string, unknown>[] = [];
  for await (const event of events) rest.push(event);
  expect(rest.filter((event) => event.type === 'text_delta')).toEqual([
    { type: 'text_delta', delta: 'lo' },
    { type: 'text_delta', delta: ' there' },
  ]);
  expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  expect(setup.replay.failures).toEqual([]);
}, 30_000);

test('cut mid-turn, the client re-attaches through the other instance and gets the rest', async () => {
  const chatId = await viaNginx.createChat();
  const held = heldAnswer(chatTextDeltasBody(['one', ' two', ' three']), 2);
  setup.replay.enqueue(held.step);
  const cut = new AbortController();
  let rest: Record<string, unknown>[];
  try {
    const started = await viaNginx.call(
      'POST',
      `/api/chats/${chatId}/turns`,
      { message: 'Count.' },
      cut.signal,
    );
    expect(started.status).toBe(200);
    const ranOn = upstreamOf(started);
    const events = readSseEvents(started);
    expect((await events.next()).value).toEqual({ type: 'text_delta', delta: 'one' });
    cut.abort();
    await events.return(undefined).catch(() => undefined);

    // Resumed after the first event (its id is 1: the turn's first persisted event).
    const resumed = await viaNginx.call('GET', `/api/chats/${chatId}/turns/current/events?after=1`);
    expect(resumed.status).toBe(200);
    expect(upstreamOf(resumed)).toBe(otherThan(ranOn));
    held.release();
    rest = await collectSseEvents(resumed);
  } finally {
    held.release();
  }
  expect(rest.filter((event) => event.type === 'text_delta')).toEqual([
    { type: 'text_delta', delta: ' two' },
    { type: 'text_delta', delta: ' three' },
  ]);
  expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  const items = await viaNginx.items(chatId);
  expect(items.at(-1)).toEqual({ type: 'assistant_text', text: 'one two three' });
  expect(setup.replay.failures).toEqual([]);
}, 30_000);

test('an approval asked by a turn on one instance is answered through the other', async () => {
  const chatId = await viaNginx.createChat();
  setup.replay.enqueue(
    { body: chatBody({ calls: [{ id: 'n1', name: 'locked', fragments: ['{"value":"proxied"}'] }] }) },
    { body: chatBody({ text: 'Done.' }) },
  );
  const started = await viaNginx.call('POST', `/api/chats/${chatId}/turns`, { message: 'Run it.' });
  expect(started.status).toBe(200);
  const ranOn = upstreamOf(started);
  const events = readSseEvents(started);
  expect(await waitForQuestion(events)).toMatchObject({ callId: 'n1', name: 'locked' });

  const answer = await viaNginx.call('POST', `/api/chats/${chatId}/approvals/n1`, { decision: 'approve' });
  expect(upstreamOf(answer)).toBe(otherThan(ranOn));
  expect({ status: answer.status, body: await answer.json() }).toEqual({
    status: 200,
    body: { callId: 'n1', decision: 'approve' },
  });
  const rest: Record<string, unknown>[] = [];
  for await (const event of events) rest.push(event);
  expect(rest[0]).toEqual({
    type: 'tool_approval_resolved',
    callId: 'n1',
    name: 'locked',
    decision: 'approved',
    by: 'user',
  });
  expect(rest.find((event) => event.type === 'tool_result')).toMatchObject({
    callId: 'n1',
    ok: true,
    result: { echoed: { value: 'proxied' } },
  });
  expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  expect(setup.replay.failures).toEqual([]);
}, 30_000);

test('a file uploaded through one instance downloads through both', async () => {
  const listed = (await viaNginx.json('GET', '/api/workspaces')).body as {
    workspaces: { id: string; kind: string }[];
  };
  const personal = listed.workspaces.find((workspace) => workspace.kind === 'personal');
  expect(personal).toBeDefined();
  const workspace = personal!.id;
  // 3 MiB: beyond nginx's in-memory body buffer (written to its temporary file) and the app's
  // general body limit, within the upload cap.
  const bytes = new Uint8Array(3 * 1024 * 1024).map((_, index) => (index * 7) % 251);
  const uploaded = await fetch(`${proxy.url}/api/workspaces/${workspace}/files?name=proxied.bin`, {
    method: 'POST',
    headers: { authorization: `Bearer ${setup.token}` },
    body: bytes,
  });
  expect({ status: uploaded.status, body: await uploaded.json() }).toEqual({
    status: 201,
    body: { workspace, path: 'proxied.bin', size: bytes.length, replaced: false },
  });
  const servedBy: (string | null)[] = [];
  for (let index = 0; index < 2; index++) {
    const download = await viaNginx.call(
      'GET',
      `/api/workspaces/${workspace}/files/content?path=proxied.bin`,
    );
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    servedBy.push(upstreamOf(download));
  }
  expect(servedBy.sort()).toEqual([first, second].sort());
}, 30_000);

test('an image made through MCP on the first instance is fetched through both', async () => {
  const mcpUpstreams: (string | null)[] = [];
  const client = new Client({ name: 'behind-nginx', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${setup.token}` } },
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        mcpUpstreams.push(upstreamOf(response));
        return response;
      },
    }),
  );
  try {
    await client.listTools();
    const result = await client.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a fox', count: 1 },
    });
    const [image] = callResultData(result).images as { id: string }[];
    expect(image?.id).toBeString();
    const servedBy: (string | null)[] = [];
    for (let index = 0; index < 2; index++) {
      const fetched = await viaNginx.call('GET', `/api/images/${image!.id}`);
      expect(fetched.status).toBe(200);
      expect(fetched.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await fetched.arrayBuffer())).toEqual(PNG_BYTES);
      servedBy.push(upstreamOf(fetched));
    }
    expect(servedBy.sort()).toEqual([first, second].sort());
  } finally {
    await client.close();
  }
  // initialize, its notification, tools/list, tools/call at least; every one on the first instance.
  expect(mcpUpstreams.length).toBeGreaterThanOrEqual(4);
  expect(new Set(mcpUpstreams)).toEqual(new Set([first]));
  expect(images.requests.map((request) => request.prompt)).toEqual(['a fox']);
}, 30_000);

test('MCP event streams carry X-Accel-Buffering: no, as turn streams do', async () => {
  const mcp = `${setup.servers[0].url}/mcp`;
  const headers = {
    authorization: `Bearer ${setup.token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  const initialized = await fetch(mcp, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  expect(initialized.status).toBe(200);
  expect(initialized.headers.get('content-type')).toBe('text/event-stream');
  expect(initialized.headers.get('x-accel-buffering')).toBe('no');
  await initialized.arrayBuffer();
  const session = initialized.headers.get('mcp-session-id');
  expect(session).toBeString();
  const withSession = { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-06-18' };

  const notifications = new AbortController();
  // Answered with the stream's first bytes, its first keep-alive comment (5 s): Bun sends a streamed
  // response's headers with its first chunk.
  const stream = await fetch(mcp, {
    headers: { ...withSession, accept: 'text/event-stream' },
    signal: notifications.signal,
  });
  expect(stream.status).toBe(200);
  expect(stream.headers.get('content-type')).toBe('text/event-stream');
  expect(stream.headers.get('x-accel-buffering')).toBe('no');
  notifications.abort();

  const acknowledged = await fetch(mcp, {
    method: 'POST',
    headers: withSession,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(acknowledged.status).toBe(202);
  expect(acknowledged.headers.get('x-accel-buffering')).toBeNull();
  expect((await fetch(mcp, { method: 'DELETE', headers: withSession })).status).toBe(200);
}, 30_000);
