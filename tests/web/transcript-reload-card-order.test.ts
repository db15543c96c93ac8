/**
 * Where the waiting approval card stands after a reload. The page reads the turn record first, and its
 * `pendingApprovals` shows the card at once, at the end of what the history gave (after the user's
 * message); the replayed stream then brings the model's text, which lands after the card for a
 * moment, and the call itself, which moves the card after the text. Whichever comes first — the record,
 * the replay, or the record between the text and the call — the page ends with the entries of the page
 * that watched the turn live: the user's message, the model's text, then one waiting card.
 */
import { describe, expect, test } from 'bun:test';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import {
  applyPendingApprovals,
  applyTurnEvent,
  emptyTranscript,
  type PendingApproval,
  type Transcript,
} from '../../web/transcript.ts';

const CALL = 'call_reload';
const COMMAND = 'echo after-reload';
const REASON = 'bash asks before every call ("approval" is "always").';
const EXPIRES = '2026-12-01T18:00:00.000Z';

/** What the turn record says while the call waits. */
const record: PendingApproval = {
  callId: CALL,
  name: 'bash',
  arguments: { command: COMMAND },
  reason: REASON,
  requestedAt: '2026-12-01T17:50:00.000Z',
  expiresAt: EXPIRES,
};

/** The turn's stream up to the question, as the server replays it (and sent it live). */
const textEvents: TurnStreamEvent[] = [
  { type: 'text_delta', delta: 'Let me ' },
  { type: 'text_delta', delta: 'run it.' },
];
const callEvents: TurnStreamEvent[] = [
  { type: 'tool_call_started', callId: CALL, name: 'bash' },
  { type: 'tool_call_arguments_delta', callId: CALL, delta: JSON.stringify({ command: COMMAND }) },
  {
    type: 'tool_call_completed',
    callId: CALL,
    name: 'bash',
    arguments: JSON.stringify({ command: COMMAND }),
  },
  {
    type: 'tool_approval_requested',
    callId: CALL,
    name: 'bash',
    arguments: { command: COMMAND },
    reason: REASON,
    expiresAt: EXPIRES,
  },
];

/** The history before the turn: the user's message (the turn's first item, not a stream event). */
function opened(): Transcript {
  const transcript = emptyTranscript();
  transcript.running = true;
  transcript.entries.push({ kind: 'user', text: 'Echo' });
  return transcript;
}

/** The transcript as the page lists it (`.transcript > *` in the browser test). */
function order(transcript: Transcript): string[] {
  return transcript.entries.map((entry) => {
    if (entry.kind === 'tool') return `card ${entry.callId} ${entry.status}`;
    if (entry.kind === 'user') return `You: ${entry.text}`;
    if (entry.kind === 'assistant') return `Model: ${entry.text}`;
    return entry.kind;
  });
}

const fold = (transcript: Transcript, events: readonly TurnStreamEvent[]) => {
  for (const event of events) applyTurnEvent(transcript, event);
};

/** The page that watched the turn live: no record, only the stream. */
function live(): Transcript {
  const transcript = opened();
  fold(transcript, [...textEvents, ...callEvents]);
  return transcript;
}

const card = `card ${CALL} waiting`;
const asLive = ['You: Echo', 'Model: Let me run it.', card];

describe('the waiting approval card after a reload', () => {
  test('live, the card comes after the model’s text and waits', () => {
    const transcript = live();
    expect(order(transcript)).toEqual(asLive);
    expect(transcript.entries[2]).toEqual({
      kind: 'tool',
      callId: CALL,
      name: 'bash',
      argumentsText: JSON.stringify({ command: COMMAND }),
      status: 'waiting',
      progress: [],
      approval: { reason: REASON, expiresAt: EXPIRES },
      step: CALL,
    });
  });

  test('the record first (as the page loads): the card shows at once, and the replay moves it after the text', () => {
    const transcript = opened();
    applyPendingApprovals(transcript, [record]);
    expect(order(transcript)).toEqual(['You: Echo', card]);
    fold(transcript, textEvents);
    // For now the replayed text stands after the card the record made…
    expect(order(transcript)).toEqual(['You: Echo', card, 'Model: Let me run it.']);
    // …until the replay reaches the call, which puts the card where it happened.
    fold(transcript, callEvents.slice(0, 1));
    expect(order(transcript)).toEqual(asLive);
    fold(transcript, callEvents.slice(1));
    expect(order(transcript)).toEqual(asLive);
    expect(transcript.entries).toEqual(live().entries);
  });

  test('the replay first, the record after it: the card stays where the stream put it, once', () => {
    const transcript = opened();
    fold(transcript, [...textEvents, ...callEvents]);
    applyPendingApprovals(transcript, [record]);
    expect(order(transcript)).toEqual(asLive);
    expect(transcript.entries).toEqual(live().entries);
  });

  test('the record between the replayed text and the call: the card after the text, then in place', () => {
    const transcript = opened();
    fold(transcript, textEvents);
    applyPendingApprovals(transcript, [record]);
    expect(order(transcript)).toEqual(asLive);
    fold(transcript, callEvents);
    expect(order(transcript)).toEqual(asLive);
    expect(transcript.entries).toEqual(live().entries);
  });
});
