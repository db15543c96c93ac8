/**
 * The push path between two real `mango serve` processes on one PostgreSQL database, with polling
 * turned off (`MANGO_WAKE_UP_POLL_MS=600000`, and the default 30 s lease): whatever crosses from one
 * instance to the other within the test's bounds came by LISTEN/NOTIFY.
 * - a question asked by the turn on A and answered through B reaches A's turn;
 * - a cancel through B stops A's turn, and B confirms it (A's recorded end wakes B);
 * - a client following A's turn through B gets the events A persists after it attached, up to `done`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  type ApprovalServers,
  type ServerEvent as Event,
  startApprovalServers,
  waitForQuestion,
} from '../helpers/approval-servers.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { readSseEvents } from '../helpers/sse-client.ts';

const NO_POLLING = { MANGO_WAKE_UP_POLL_MS: '600000' };

describe('wake-ups pushed between two servers on postgres', () => {
  let setup: ApprovalServers;

  beforeAll(async () => {
    setup = await startApprovalServers('postgres', 30_000, NO_POLLING);
    const settings = await setup.a.json('PUT', '/api/settings/tools/locked', {
      parameters: { approval: 'always' },
    });
    expect(settings.status).toBe(200);
  }, 60_000);

  afterAll(() => setup.close());

  test('answered through B, the approval reaches the turn on A', async () => {
    const { a, b, replay } = setup;
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [{ id: 'p1', name: 'locked', fragments: ['{"value":"pushed"}'] }] }) },
      { body: chatBody({ text: 'Done.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Run it.' }));
    await waitForQuestion(onA);
    expect(await b.json('POST', `/api/chats/${chatId}/approvals/p1`, { decision: 'approve' })).toEqual({
      status: 200,
      body: { callId: 'p1', decision: 'approve' },
    });
    expect((await onA.next()).value).toEqual({
      type: 'tool_approval_resolved',
      callId: 'p1',
      name: 'locked',
      decision: 'approved',
      by: 'user',
    });
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(replay.failures).toEqual([]);
  }, 30_000);

  test('a cancel through B stops the turn on A, and B confirms it', async () => {
    const { a, b, replay } = setup;
    const chatId = await a.createChat();
    replay.enqueue({
      body: chatBody({ calls: [{ id: 'p2', name: 'locked', fragments: ['{"value":"x"}'] }] }),
    });
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' }));
    await waitForQuestion(onA);
    expect(await b.json('POST', `/api/chats/${chatId}/cancel`)).toEqual({
      status: 200,
      body: { cancelled: true },
    });
    const rest: Event[] = [];
    for await (const event of onA) rest.push(event);
    expect(rest[0]).toEqual({
      type: 'tool_approval_resolved',
      callId: 'p2',
      name: 'locked',
      decision: 'denied',
      by: 'cancel',
    });
    expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
  }, 30_000);

  test('a client following A’s turn through B gets what A persists after it attached', async () => {
    const { a, b, replay } = setup;
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [{ id: 'p3', name: 'locked', fragments: ['{"value":"follow"}'] }] }) },
      { body: chatBody({ text: 'Followed.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' }));
    await waitForQuestion(onA);
    // B replays up to the question, then waits: everything after comes while it waits.
    const onB = readSseEvents(await b.call('GET', `/api/chats/${chatId}/turns/current/events`));
    await waitForQuestion(onB);
    // Answered on A itself: B learns nothing of it except through the events A persists.
    expect((await a.json('POST', `/api/chats/${chatId}/approvals/p3`, { decision: 'approve' })).status).toBe(
      200,
    );
    const followed: Event[] = [];
    for await (const event of onB) followed.push(event);
    expect(followed[0]).toMatchObject({ type: 'tool_approval_resolved', callId: 'p3', decision: 'approved' });
    expect(followed.find((event) => event.type === 'tool_result')).toMatchObject({ callId: 'p3', ok: true });
    expect(followed.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    for await (const _ of onA) {
      // drained: A's own stream ends too
    }
  }, 30_000);
});
