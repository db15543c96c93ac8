/**
 * Approvals across two real `mango serve` processes sharing one database (SQLite file, PostgreSQL),
 * lease 1.5 s through `MANGO_TURN_LEASE_MS`, the model played by the replay server:
 * - a question asked by the turn on A is listed and answered through B; A notices within its poll and
 *   runs the call (the delay is printed for the report);
 * - denied through B with a reason: the model's next request to A's turn carries the reason;
 * - cancelled through B while the call waits: the call is cancelled, never run, and a later answer 409;
 * - A paused (`SIGSTOP`) past its lease while its call waits: an answer through B is refused (409), the
 *   turn is reported lost with nothing waiting, and after `SIGCONT` A's stream ends with `done{error}`
 *   without running the call; a later answer is still 409.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  type ApprovalServers,
  type ServerEvent as Event,
  startApprovalServers,
  waitForQuestion,
} from '../helpers/approval-servers.ts';
import { chatApi } from '../helpers/chat-api-client.ts';
import type { ReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import type { ServerProcess } from '../helpers/server-process.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { BACKENDS } from '../helpers/test-database.ts';
import { waitUntil } from '../helpers/wait-until.ts';

const LEASE_MS = 1_500;

describe.each(BACKENDS)('approvals across two servers on %s', (backend) => {
  let setup: ApprovalServers;
  let replay: ReplayServer;
  let servers: ServerProcess[];
  let token: string;

  beforeAll(async () => {
    setup = await startApprovalServers(backend, LEASE_MS);
    ({ replay, servers, token } = setup);
    // `locked` (a test tool that cannot be disabled) asks before each call.
    const settings = await setup.a.json('PUT', '/api/settings/tools/locked', {
      parameters: { approval: 'always' },
    });
    expect(settings.status).toBe(200);
  }, 60_000);

  afterAll(() => setup.close());

  test('asked on A, answered through B: A runs the call', async () => {
    const [a, b] = [chatApi(servers[0]!.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [{ id: 'x1', name: 'locked', fragments: ['{"value":"over there"}'] }] }) },
      { body: chatBody({ text: 'It ran.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Run it.' }));
    const question = await waitForQuestion(onA);
    expect(question).toMatchObject({ callId: 'x1', name: 'locked', arguments: { value: 'over there' } });
    const record = await b.json('GET', `/api/chats/${chatId}/turns/current`);
    expect((record.body as { pendingApprovals: Event[] }).pendingApprovals).toMatchObject([
      { callId: 'x1', name: 'locked', reason: 'locked asks before every call ("approval" is "always").' },
    ]);

    const answeredAt = performance.now();
    expect(await b.json('POST', `/api/chats/${chatId}/approvals/x1`, { decision: 'approve' })).toEqual({
      status: 200,
      body: { callId: 'x1', decision: 'approve' },
    });
    const resolved = await onA.next();
    const noticedAfter = performance.now() - answeredAt;
    expect(resolved.value).toEqual({
      type: 'tool_approval_resolved',
      callId: 'x1',
      name: 'locked',
      decision: 'approved',
      by: 'user',
    });
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest.find((event) => event.type === 'tool_result')).toMatchObject({
      callId: 'x1',
      ok: true,
      result: { echoed: { value: 'over there' } },
    });
    expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(replay.failures).toEqual([]);
    console.log(
      `[figures] approvals on ${backend}: an answer taken by the other instance reached the turn after ${noticedAfter.toFixed(0)} ms (poll every ${LEASE_MS / 5} ms)`,
    );
  }, 30_000);

  test('denied through B with a reason: the model reads the reason in A’s next request', async () => {
    const [a, b] = [chatApi(servers[0]!.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [{ id: 'x3', name: 'locked', fragments: ['{"value":"no"}'] }] }) },
      { body: chatBody({ text: 'Understood.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Try.' }));
    await waitForQuestion(onA);
    const reason = 'not on the shared machine';
    expect(await b.json('POST', `/api/chats/${chatId}/approvals/x3`, { decision: 'deny', reason })).toEqual({
      status: 200,
      body: { callId: 'x3', decision: 'deny', reason },
    });
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest[0]).toEqual({
      type: 'tool_approval_resolved',
      callId: 'x3',
      name: 'locked',
      decision: 'denied',
      by: 'user',
      reason,
    });
    expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const messages = (replay.requests.at(-1)!.body as { messages: { role: string; content?: unknown }[] })
      .messages;
    const toolMessage = messages.find((message) => message.role === 'tool');
    expect(JSON.parse(String(toolMessage?.content))).toEqual({
      error: { classification: 'denied', message: `The user denied this call: ${reason}` },
    });
    expect(replay.failures).toEqual([]);
  }, 30_000);

  test('cancelled through B while the call waits: the call is cancelled, and a later answer is 409', async () => {
    const [a, b] = [chatApi(servers[0]!.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue({
      body: chatBody({ calls: [{ id: 'x4', name: 'locked', fragments: ['{"value":"stop"}'] }] }),
    });
    const requestsBefore = replay.requests.length;
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' }));
    await waitForQuestion(onA);
    expect(await b.json('POST', `/api/chats/${chatId}/cancel`)).toEqual({
      status: 200,
      body: { cancelled: true },
    });
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest).toEqual([
      { type: 'tool_approval_resolved', callId: 'x4', name: 'locked', decision: 'denied', by: 'cancel' },
      {
        type: 'tool_result',
        callId: 'x4',
        name: 'locked',
        durationMs: 0,
        ok: false,
        error: {
          classification: 'cancelled',
          message: 'The turn was cancelled while the call waited for approval.',
        },
      },
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    // Only the request that made the call: a cancelled turn asks the model nothing more.
    expect(replay.requests.length).toBe(requestsBefore + 1);
    expect((await b.json('POST', `/api/chats/${chatId}/approvals/x4`, { decision: 'approve' })).status).toBe(
      409,
    );
  }, 30_000);

  test('A paused past its lease while a call waits: answers are 409, and A ends without running it', async () => {
    const paused = servers[0]!;
    const [a, b] = [chatApi(paused.url, token), chatApi(servers[1]!.url, token)];
    const chatId = await a.createChat();
    replay.enqueue({
      body: chatBody({ calls: [{ id: 'x2', name: 'locked', fragments: ['{"value":"never"}'] }] }),
    });
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Wait.' }));
    await waitForQuestion(onA);

    paused.child.kill('SIGSTOP');
    try {
      // Past the lease as the database dates it (A, stopped, renews it no more; a renewal A sent just
      // before is stored long before the lease it extended runs out): B refuses the answer, since the
      // paused instance can no longer run the call and no other instance will.
      const leaseExpired = async () => {
        const { body } = (await b.json('GET', `/api/chats/${chatId}/turns/current`)) as {
          body: { leaseExpiresAt: string | null };
        };
        return body.leaseExpiresAt === null || Date.parse(body.leaseExpiresAt) < Date.now();
      };
      expect(await waitUntil(leaseExpired, LEASE_MS * 10)).toBe(true);
      expect(await b.json('POST', `/api/chats/${chatId}/approvals/x2`, { decision: 'approve' })).toEqual({
        status: 409,
        body: {
          error:
            'The call "x2" (locked) no longer waits for approval: its turn has ended or the server running it lost the chat.',
          code: 'approval_closed',
        },
      });
    } finally {
      paused.child.kill('SIGCONT');
    }
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    expect(rest.filter((event) => event.type === 'tool_result')).toEqual([]);
    expect(await b.json('POST', `/api/chats/${chatId}/approvals/x2`, { decision: 'approve' })).toEqual({
      status: 409,
      body: {
        error:
          'The call "x2" (locked) no longer waits for approval: its turn was interrupted (the server running it lost the chat).',
        code: 'approval_closed',
      },
    });
    const record = (await b.json('GET', `/api/chats/${chatId}/turns/current`)) as {
      body: { state: string; pendingApprovals: unknown[] };
    };
    expect(record.body.pendingApprovals).toEqual([]);
    // Two endings are both correct and race by nature: A records `error` itself after SIGCONT, unless
    // B found the lease expired first and recorded the turn `lost` (A's own end is then refused).
    expect(['error', 'lost']).toContain(record.body.state);
    expect(await b.items(chatId)).toEqual([
      { type: 'user_text', text: 'Wait.' },
      expect.objectContaining({ type: 'tool_call', callId: 'x2', name: 'locked' }),
    ]);
  }, 30_000);
});
