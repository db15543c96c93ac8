/**
 * The transcript fold of approvals: a call waits from `tool_approval_requested` until
 * `tool_approval_resolved` (approved: it runs; denied: it fails as `denied` with the reason), and a
 * reload rebuilds the waiting card from the turn record's `pendingApprovals`, then the replayed stream
 * moves it to where the call happened and answers it. An approval that saved a rule carries it to the
 * card; a call behind a waiting one in the same response is `queued` until that one is answered.
 */
import { describe, expect, test } from 'bun:test';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import {
  applyPendingApprovals,
  applyTurnEvent,
  emptyTranscript,
  isAwaitingAnswer,
  type PendingApproval,
  type ToolCallEntry,
  type Transcript,
} from '../../web/transcript.ts';

const EXPIRES = '2026-12-01T18:00:00.000Z';
const REASON = 'bash asks before every call ("approval" is "always").';

function fold(transcript: Transcript, events: TurnStreamEvent[]): Transcript {
  for (const event of events) applyTurnEvent(transcript, event);
  return transcript;
}

function running(): Transcript {
  const transcript = emptyTranscript();
  transcript.running = true;
  transcript.entries.push({ kind: 'user', text: 'List the files' });
  return transcript;
}

const callEvents = (callId: string, command: string): TurnStreamEvent[] => [
  { type: 'tool_call_started', callId, name: 'bash' },
  { type: 'tool_call_arguments_delta', callId, delta: JSON.stringify({ command }) },
  { type: 'tool_call_completed', callId, name: 'bash', arguments: JSON.stringify({ command }) },
];

const requested = (callId: string, command: string): TurnStreamEvent => ({
  type: 'tool_approval_requested',
  callId,
  name: 'bash',
  arguments: { command },
  reason: REASON,
  expiresAt: EXPIRES,
});

const call = (transcript: Transcript, index: number) => transcript.entries[index] as ToolCallEntry;

describe('live approval events', () => {
  test('a requested call waits; approved, it runs and its result arrives', () => {
    const transcript = fold(running(), [
      { type: 'text_delta', delta: 'Let me look.' },
      ...callEvents('c1', 'ls -la'),
      requested('c1', 'ls -la'),
    ]);
    const card = call(transcript, 2);
    expect(card.status).toBe('waiting');
    expect(card.approval).toEqual({ reason: REASON, expiresAt: EXPIRES });
    expect(isAwaitingAnswer(card)).toBe(true);

    fold(transcript, [
      { type: 'tool_approval_resolved', callId: 'c1', name: 'bash', decision: 'approved', by: 'user' },
    ]);
    expect(card.status).toBe('running');
    expect(card.approval).toEqual({ reason: REASON, expiresAt: EXPIRES, decision: 'approved', by: 'user' });
    expect(isAwaitingAnswer(card)).toBe(false);
    fold(transcript, [
      { type: 'tool_result', callId: 'c1', ok: true, result: { stdout: 'a\n' }, durationMs: 5 },
    ]);
    expect(card).toMatchObject({ status: 'succeeded', result: { stdout: 'a\n' }, durationMs: 5 });
  });

  test('denied by the user with a reason: failed as denied with the reason, then the server’s message', () => {
    const transcript = fold(running(), [
      ...callEvents('c1', 'rm -rf build'),
      requested('c1', 'rm -rf build'),
      {
        type: 'tool_approval_resolved',
        callId: 'c1',
        name: 'bash',
        decision: 'denied',
        by: 'user',
        reason: 'keep the build',
      },
    ]);
    const card = call(transcript, 1);
    expect(card.status).toBe('failed');
    expect(card.error).toEqual({
      classification: 'denied',
      message: 'The user denied this call: keep the build',
    });
    expect(card.approval?.denialReason).toBe('keep the build');
    fold(transcript, [
      {
        type: 'tool_result',
        callId: 'c1',
        ok: false,
        error: { classification: 'denied', message: 'The user denied this call: keep the build' },
      },
    ]);
    expect(card.error).toEqual({
      classification: 'denied',
      message: 'The user denied this call: keep the build',
    });
  });

  test('timeout, cancel and interruption say what happened; a denial without reason says so', () => {
    const outcomes: [string, string | undefined, { classification: string; message: string }][] = [
      ['user', undefined, { classification: 'denied', message: 'The user denied this call.' }],
      [
        'timeout',
        undefined,
        { classification: 'denied', message: 'No answer came in time, so the call was denied.' },
      ],
      [
        'cancel',
        undefined,
        {
          classification: 'cancelled',
          message: 'The turn was cancelled while this call waited for approval.',
        },
      ],
      [
        'interrupted',
        undefined,
        {
          classification: 'cancelled',
          message: 'The server running this turn stopped while this call waited for approval.',
        },
      ],
    ];
    for (const [by, reason, error] of outcomes) {
      const transcript = fold(running(), [
        ...callEvents('c1', 'make'),
        requested('c1', 'make'),
        { type: 'tool_approval_resolved', callId: 'c1', name: 'bash', decision: 'denied', by, reason },
      ]);
      expect(call(transcript, 1).error).toEqual(error);
    }
  });

  test('the turn ending while a call waits marks it cancelled', () => {
    const transcript = fold(running(), [
      ...callEvents('c1', 'make'),
      requested('c1', 'make'),
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(call(transcript, 1)).toMatchObject({ status: 'failed', error: { classification: 'cancelled' } });
  });

  test('an approval that saved a rule carries it, and a later event without one keeps it', () => {
    const remembered = { setting: 'autoApprovedCommands', rule: 'git status' };
    const transcript = fold(running(), [
      ...callEvents('c1', 'git status -s'),
      requested('c1', 'git status -s'),
      {
        type: 'tool_approval_resolved',
        callId: 'c1',
        name: 'bash',
        decision: 'approved',
        by: 'user',
        remembered,
      },
    ]);
    expect(call(transcript, 1).approval).toEqual({
      reason: REASON,
      expiresAt: EXPIRES,
      decision: 'approved',
      by: 'user',
      remembered,
    });
    // A malformed rule is not shown; the one already known stays.
    fold(transcript, [
      {
        type: 'tool_approval_resolved',
        callId: 'c1',
        name: 'bash',
        decision: 'approved',
        by: 'user',
        remembered: { setting: 7 },
      },
    ]);
    expect(call(transcript, 1).approval?.remembered).toEqual(remembered);
  });

  test('a call behind a waiting one of the same response is queued until that one is answered', () => {
    const transcript = fold(running(), [
      ...callEvents('c1', 'make'),
      ...callEvents('c2', 'make install'),
      { type: 'tool_call_started', callId: 'c3', name: 'read_file' },
      { type: 'tool_call_completed', callId: 'c3', name: 'read_file', arguments: '{"path":"a"}' },
    ]);
    const statuses = () =>
      transcript.entries.flatMap((entry) =>
        entry.kind === 'tool' ? [`${entry.callId} ${entry.status}`] : [],
      );
    expect(statuses()).toEqual(['c1 running', 'c2 running', 'c3 running']);
    fold(transcript, [requested('c1', 'make')]);
    expect(statuses()).toEqual(['c1 waiting', 'c2 queued', 'c3 queued']);
    // The next in line asking once the first is approved: it waits, the one behind it stays queued.
    fold(transcript, [
      { type: 'tool_approval_resolved', callId: 'c1', name: 'bash', decision: 'approved', by: 'user' },
    ]);
    expect(statuses()).toEqual(['c1 running', 'c2 running', 'c3 running']);
    fold(transcript, [
      { type: 'tool_result', callId: 'c1', ok: true, result: {}, durationMs: 1 },
      requested('c2', 'make install'),
    ]);
    expect(statuses()).toEqual(['c1 succeeded', 'c2 waiting', 'c3 queued']);
    // The turn ending while a call is queued ends it too.
    fold(transcript, [{ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' }]);
    expect(statuses()).toEqual(['c1 succeeded', 'c2 failed', 'c3 failed']);
    expect(call(transcript, 3).error).toEqual({
      classification: 'cancelled',
      message: 'The turn ended before this call finished.',
    });
  });

  test('a later call that shows progress or its own question did start: it is not queued', () => {
    const transcript = fold(running(), [
      ...callEvents('c1', 'ls'),
      ...callEvents('c2', 'pwd'),
      ...callEvents('c3', 'id'),
      requested('c1', 'ls'),
      { type: 'tool_progress', callId: 'c2', name: 'bash', progress: { type: 'output', message: 'x' } },
      requested('c3', 'id'),
    ]);
    expect(transcript.entries.map((entry) => (entry.kind === 'tool' ? entry.status : entry.kind))).toEqual([
      'user',
      'waiting',
      'running',
      'waiting',
    ]);
  });

  test('a waiting call of an earlier turn does not queue the calls of the next', () => {
    const transcript = fold(running(), [...callEvents('c1', 'ls'), requested('c1', 'ls')]);
    // A stale card (the stream closed without `done`) is ended by the page; here it is still waiting.
    transcript.entries.push({ kind: 'user', text: 'Again' });
    fold(transcript, callEvents('c2', 'ls'));
    expect(call(transcript, 3).status).toBe('running');
  });

  test('an answer for a call the transcript never saw is ignored', () => {
    const transcript = fold(running(), [
      { type: 'tool_approval_resolved', callId: 'nope', name: 'bash', decision: 'approved', by: 'user' },
    ]);
    expect(transcript.entries).toEqual([{ kind: 'user', text: 'List the files' }]);
  });
});

describe('after a reload', () => {
  const pending: PendingApproval = {
    callId: 'c1',
    name: 'bash',
    arguments: { command: 'git status' },
    reason: REASON,
    requestedAt: '2026-12-01T17:50:00.000Z',
    expiresAt: EXPIRES,
  };

  test('the turn record makes a waiting card at once; the replay moves it after the text before it', () => {
    const transcript = applyPendingApprovals(running(), [pending]);
    expect(transcript.entries[1]).toEqual({
      kind: 'tool',
      callId: 'c1',
      name: 'bash',
      argumentsText: '{"command":"git status"}',
      status: 'waiting',
      progress: [],
      approval: { reason: REASON, expiresAt: EXPIRES },
      fromRecord: true,
      step: 'c1',
    });
    fold(transcript, [{ type: 'text_delta', delta: 'Checking.' }, ...callEvents('c1', 'git status')]);
    expect(transcript.entries.map((entry) => entry.kind)).toEqual(['user', 'assistant', 'tool']);
    const card = call(transcript, 2);
    expect(card.fromRecord).toBeUndefined();
    // Still waiting after its replayed tool_call_completed; the replayed request changes nothing.
    expect(card.status).toBe('waiting');
    fold(transcript, [requested('c1', 'git status')]);
    expect(card.status).toBe('waiting');
    expect(card.argumentsText).toBe('{"command":"git status"}');
    fold(transcript, [
      { type: 'tool_approval_resolved', callId: 'c1', name: 'bash', decision: 'approved', by: 'user' },
    ]);
    expect(card.status).toBe('running');
  });

  test('a call the replay already answered is not made to wait again by an older record', () => {
    const transcript = fold(running(), [
      ...callEvents('c1', 'git status'),
      requested('c1', 'git status'),
      { type: 'tool_approval_resolved', callId: 'c1', name: 'bash', decision: 'approved', by: 'user' },
    ]);
    applyPendingApprovals(transcript, [pending]);
    expect(call(transcript, 1).status).toBe('running');
    expect(transcript.entries).toHaveLength(2);
  });

  test('a reload while the first call waits shows the one behind it queued, as live', () => {
    const transcript = applyPendingApprovals(running(), [pending]);
    fold(transcript, [...callEvents('c1', 'git status'), ...callEvents('c2', 'git push')]);
    expect(call(transcript, 1).status).toBe('waiting');
    expect(call(transcript, 2).status).toBe('queued');
  });

  test('a known call without a request yet becomes waiting, in place', () => {
    const transcript = fold(running(), callEvents('c1', 'git status'));
    applyPendingApprovals(transcript, [pending]);
    expect(transcript.entries).toHaveLength(2);
    expect(call(transcript, 1)).toMatchObject({ status: 'waiting', approval: { reason: REASON } });
    expect(call(transcript, 1).fromRecord).toBeUndefined();
  });
});
