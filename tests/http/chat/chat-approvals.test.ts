/**
 * Approvals through the chat API in process (`app.handle`), on SQLite and PostgreSQL, with a scripted
 * provider and the real bash tool in its sandbox: a call that needs approval emits
 * `tool_approval_requested`, is listed in the turn record's `pendingApprovals` and in a replay, and
 * waits; approve runs it, deny gives the model the user's reason, the timeout (fired by hand) and a
 * cancel end the wait, and a later answer is 409. The rules and `remember`: chat-approval-rules.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  type ApprovalsApi,
  bashCall,
  createApprovalsApi,
  isApprovalRequest as requested,
} from '../../helpers/approvals-api.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { readSseEvents } from '../../helpers/sse-client.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS } from '../../helpers/test-database.ts';

type Event = Record<string, unknown>;

describe.each(BACKENDS)('approvals through the chat API on %s', (backend) => {
  let api: ApprovalsApi;
  beforeAll(async () => {
    api = await createApprovalsApi(backend);
  }, 30_000);
  afterAll(() => api.dispose());

  test('approve: the question is streamed, listed, replayed, and the approved command runs', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b1', 'echo approved-run')]),
      textResponse('Ran it.'),
    ]);
    const turn = await api.startUntil(chatId, 'Run it.', requested);
    const question = turn.seen.at(-1)!;
    expect(question).toEqual({
      type: 'tool_approval_requested',
      callId: 'b1',
      name: 'bash',
      arguments: { command: 'echo approved-run' },
      reason: 'bash asks before every call ("approval" is "always").',
      expiresAt: new Date(FIXED_NOW + 600_000).toISOString(),
    });

    const current = await api.json('GET', `/api/chats/${chatId}/turns/current`);
    expect(current.status).toBe(200);
    expect(current.body.state).toBe('running');
    expect(current.body.pendingApprovals).toEqual([
      {
        callId: 'b1',
        name: 'bash',
        arguments: { command: 'echo approved-run' },
        reason: 'bash asks before every call ("approval" is "always").',
        requestedAt: new Date(FIXED_NOW).toISOString(),
        expiresAt: new Date(FIXED_NOW + 600_000).toISOString(),
      },
    ]);
    // A client that re-attaches sees the question in the replay.
    const replay = readSseEvents(
      await api.call('GET', `/api/chats/${chatId}/turns/current/events?after=0`, api.alice),
    );
    const replayed: Event[] = [];
    for await (const event of replay) {
      replayed.push(event);
      if (requested(event)) break;
    }
    await replay.return(undefined);
    expect(replayed.at(-1)).toEqual(question);

    expect(await api.json('POST', `/api/chats/${chatId}/approvals/b1`, { decision: 'approve' })).toEqual({
      status: 200,
      body: { callId: 'b1', decision: 'approve' },
    });
    const events = await turn.rest();
    const tail = events.filter((event) =>
      ['tool_approval_resolved', 'tool_result', 'done'].includes(String(event.type)),
    );
    expect(tail[0]).toEqual({
      type: 'tool_approval_resolved',
      callId: 'b1',
      name: 'bash',
      decision: 'approved',
      by: 'user',
    });
    expect(tail[1]).toMatchObject({
      type: 'tool_result',
      callId: 'b1',
      ok: true,
      result: { stdout: 'approved-run\n' },
    });
    expect(tail[2]).toEqual({ type: 'done', reason: 'completed' });
    expect((await api.json('GET', `/api/chats/${chatId}/turns/current`)).body.pendingApprovals).toEqual([]);
    // Answered once: a second answer is a conflict.
    expect(await api.json('POST', `/api/chats/${chatId}/approvals/b1`, { decision: 'deny' })).toEqual({
      status: 409,
      body: {
        error: 'The call "b1" (bash) no longer waits for approval: it was already approved.',
        code: 'approval_closed',
      },
    });
  }, 30_000);

  test('deny with a reason: the model receives the reason in the call result', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b2', 'rm -rf build')]),
      textResponse('Understood.'),
    ]);
    const turn = await api.startUntil(chatId, 'Clean up.', requested);
    expect(
      await api.json('POST', `/api/chats/${chatId}/approvals/b2`, {
        decision: 'deny',
        reason: 'Keep the build.',
      }),
    ).toEqual({ status: 200, body: { callId: 'b2', decision: 'deny', reason: 'Keep the build.' } });
    const events = await turn.rest();
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'b2',
      name: 'bash',
      decision: 'denied',
      by: 'user',
      reason: 'Keep the build.',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      ok: false,
      error: { classification: 'denied', message: 'The user denied this call: Keep the build.' },
    });
    const sent = api.slot.provider.requests[1]!.history.at(-1);
    expect(sent).toEqual({
      type: 'tool_result',
      callId: 'b2',
      name: 'bash',
      ok: false,
      output: JSON.stringify({
        error: { classification: 'denied', message: 'The user denied this call: Keep the build.' },
      }),
    });
  }, 30_000);

  test('timeout: an unanswered call is denied after approvalTimeoutSeconds, and a late answer is 409', async () => {
    const chatId = await api.newChat();
    expect(
      (await api.json('PUT', '/api/settings/tools/risky', { parameters: { approvalTimeoutSeconds: 10 } }))
        .status,
    ).toBe(200);
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'r1', name: 'risky', arguments: { value: 'x' } }]),
      textResponse('Nobody answered.'),
    ]);
    const before = api.timers.pending.length;
    const turn = await api.startUntil(chatId, 'Try.', requested);
    expect(turn.seen.at(-1)!.expiresAt).toBe(new Date(FIXED_NOW + 10_000).toISOString());
    const timer = api.timers.pending
      .slice(before)
      .find((entry) => entry.milliseconds === 10_000 && !entry.cleared);
    expect(timer).toBeDefined();
    timer!.callback();
    const events = await turn.rest();
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'r1',
      name: 'risky',
      decision: 'denied',
      by: 'timeout',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      ok: false,
      error: {
        classification: 'denied',
        message:
          'Nobody answered the approval question within 10 seconds (approvalTimeoutSeconds), so the call was denied and not run.',
      },
    });
    expect(await api.json('POST', `/api/chats/${chatId}/approvals/r1`, { decision: 'approve' })).toEqual({
      status: 409,
      body: {
        error:
          'The call "r1" (risky) no longer waits for approval: nobody answered in time, so it was denied.',
        code: 'approval_closed',
      },
    });
  }, 30_000);

  test('cancel while waiting: the call is cancelled and the turn ends cancelled', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([toolCallsResponse([bashCall('b3', 'echo never')])]);
    const turn = await api.startUntil(chatId, 'Go.', requested);
    expect(await api.json('POST', `/api/chats/${chatId}/cancel`)).toEqual({
      status: 200,
      body: { cancelled: true },
    });
    const events = await turn.rest();
    expect(events.slice(events.findIndex(requested) + 1)).toEqual([
      { type: 'tool_approval_resolved', callId: 'b3', name: 'bash', decision: 'denied', by: 'cancel' },
      {
        type: 'tool_result',
        callId: 'b3',
        name: 'bash',
        durationMs: 0,
        ok: false,
        error: {
          classification: 'cancelled',
          message: 'The turn was cancelled while the call waited for approval.',
        },
      },
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(
      (await api.json('POST', `/api/chats/${chatId}/approvals/b3`, { decision: 'approve' })).status,
    ).toBe(409);
  }, 30_000);
});
