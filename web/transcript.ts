/**
 * The chat transcript as data: pure functions that fold stored history and live turn events
 * (docs/turns.md, "The event stream" — text_delta, tool_call_*, tool_approval_*, tool_result,
 * tool_progress, finish, done) into entries the chat view renders. Kept free of the DOM so it is
 * unit-tested. A call waiting for the user's approval is `waiting` until its `tool_approval_resolved`;
 * a call after it in the same response that has not started is `queued` (the server runs a response's
 * calls in order unless all are read-only, so it waits for that answer too); the turn record's `pendingApprovals` (read on load, before the stream replays) may create its card
 * first, and the replayed `tool_call_started` then moves that card to where the call happened.
 */
import type { PendingApproval } from './api-client.ts';

export type { PendingApproval };

import { finishTurn } from './finish-turn.ts';
import type { TurnStreamEvent } from './sse-parser.ts';
import type { ToolApproval, ToolCallEntry, Transcript } from './transcript-entries.ts';

export type {
  ToolApproval,
  ToolCallEntry,
  ToolCallStatus,
  Transcript,
  TranscriptEntry,
} from './transcript-entries.ts';

/** The step a call arriving now belongs to: the open response's, or a new one it opens. */
export function stepOf(transcript: Transcript, callId: string): string {
  transcript.openStep ??= callId;
  return transcript.openStep;
}

export function emptyTranscript(): Transcript {
  // `openStep` is an own key, so assigning a rebuilt transcript over a live one clears it too.
  return { entries: [], running: false, openStep: undefined };
}

export function findToolCall(transcript: Transcript, callId: string): ToolCallEntry | undefined {
  for (let index = transcript.entries.length - 1; index >= 0; index -= 1) {
    const entry = transcript.entries[index]!;
    if (entry.kind === 'tool' && entry.callId === callId) return entry;
  }
  return undefined;
}

/** Calls of the transcript that have no result yet (streaming, waiting for an answer, queued or running). */
export function pendingToolCalls(transcript: Transcript): number {
  let pending = 0;
  for (const entry of transcript.entries) {
    if (entry.kind === 'tool' && entry.status !== 'succeeded' && entry.status !== 'failed') pending += 1;
  }
  return pending;
}

export function appendAssistantText(transcript: Transcript, text: string): void {
  const last = transcript.entries.at(-1);
  if (last?.kind === 'assistant') last.text += text;
  else transcript.entries.push({ kind: 'assistant', text });
}

export function readError(value: unknown): { classification?: string; message: string } {
  if (typeof value === 'string') return { message: value };
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return {
      classification: typeof record.classification === 'string' ? record.classification : undefined,
      message: typeof record.message === 'string' ? record.message : JSON.stringify(value),
    };
  }
  return { message: String(value) };
}

/** The question a `tool_approval_requested` event asks. */
function approvalRequestOf(callId: string, event: TurnStreamEvent): Parameters<typeof requestApproval>[1] {
  return {
    callId,
    name: String(event.name ?? ''),
    arguments: event.arguments,
    reason: typeof event.reason === 'string' ? event.reason : '',
    expiresAt: typeof event.expiresAt === 'string' ? event.expiresAt : undefined,
  };
}

/** The answer a `tool_approval_resolved` event gives: denied unless it says approved. */
function approvalAnswerOf(event: TurnStreamEvent): Parameters<typeof resolveApproval>[1] {
  return {
    decision: event.decision === 'approved' ? 'approved' : 'denied',
    by: typeof event.by === 'string' ? event.by : 'user',
    denialReason: typeof event.reason === 'string' && event.reason !== '' ? event.reason : undefined,
    remembered: readRememberedRule(event.remembered),
  };
}

/** A call the stream announces before any record of it was shown. */
function newToolCall(
  transcript: Transcript,
  callId: string,
  event: TurnStreamEvent,
  status: 'streaming' | 'running',
): ToolCallEntry {
  return {
    kind: 'tool',
    callId,
    name: String(event.name ?? ''),
    argumentsText: '',
    status,
    progress: [],
    step: stepOf(transcript, callId),
  };
}

/** A call's `tool_result`: its duration and outcome, with the result or error when the event carries one. */
function settleToolCall(call: ToolCallEntry, event: TurnStreamEvent): void {
  call.durationMs = typeof event.durationMs === 'number' ? event.durationMs : undefined;
  // A replayed trace carries no payload: the stored message already gave the call its result.
  if (event.ok === true) {
    call.status = 'succeeded';
    if ('result' in event) call.result = event.result;
  } else {
    call.status = 'failed';
    if ('error' in event) call.error = readError(event.error);
  }
}

/** A `done`: how the turn ended, and its usage line under it. */
function endTurn(transcript: Transcript, event: TurnStreamEvent): void {
  transcript.openStep = undefined;
  finishTurn(
    transcript,
    typeof event.reason === 'string' ? event.reason : 'completed',
    typeof event.message === 'string' ? event.message : undefined,
    typeof event.finishReason === 'string' ? event.finishReason : undefined,
  );
  if (transcript.turnUsage) transcript.entries.push({ kind: 'usage', ...transcript.turnUsage });
  transcript.turnUsage = undefined;
}

/** Folds one live turn event into the transcript (mutates and returns it). Unknown types are ignored. */
export function applyTurnEvent(transcript: Transcript, event: TurnStreamEvent): Transcript {
  const callId = typeof event.callId === 'string' ? event.callId : '';
  switch (event.type) {
    case 'text_delta':
      if (typeof event.delta === 'string') appendAssistantText(transcript, event.delta);
      break;
    case 'tool_call_started':
      if (!placeCallFromRecord(transcript, callId) && !findToolCall(transcript, callId)) {
        transcript.entries.push(newToolCall(transcript, callId, event, 'streaming'));
      }
      break;
    case 'tool_call_arguments_delta': {
      const call = findToolCall(transcript, callId);
      if (call && typeof event.delta === 'string') call.argumentsText += event.delta;
      break;
    }
    case 'tool_call_completed': {
      let call = placeCallFromRecord(transcript, callId) ?? findToolCall(transcript, callId);
      if (!call) {
        call = newToolCall(transcript, callId, event, 'running');
        transcript.entries.push(call);
      }
      if (typeof event.arguments === 'string') call.argumentsText = event.arguments;
      call.status = isAwaitingAnswer(call) ? 'waiting' : 'running';
      break;
    }
    case 'tool_approval_requested':
      requestApproval(transcript, approvalRequestOf(callId, event));
      break;
    case 'tool_approval_resolved': {
      const call = findToolCall(transcript, callId);
      if (call) resolveApproval(call, approvalAnswerOf(event));
      break;
    }
    case 'tool_progress': {
      const call = findToolCall(transcript, callId);
      if (call) call.progress.push(event);
      break;
    }
    case 'tool_result': {
      const call = findToolCall(transcript, callId);
      if (call) settleToolCall(call, event);
      break;
    }
    case 'finish':
      // The model's response ended: calls after this one are the next response's.
      transcript.openStep = undefined;
      addUsage(transcript, event.usage);
      if (event.reason === 'error') {
        const text =
          typeof event.message === 'string' ? `Provider error: ${event.message}` : 'Provider error.';
        transcript.entries.push({ kind: 'notice', tone: 'error', text });
      }
      break;
    case 'error': {
      const text = typeof event.message === 'string' ? event.message : 'The turn failed.';
      transcript.entries.push({ kind: 'notice', tone: 'error', text });
      break;
    }
    case 'provider_retry': {
      const wait = typeof event.waitSeconds === 'number' ? event.waitSeconds : '?';
      transcript.entries.push({
        kind: 'notice',
        tone: 'info',
        text: `The provider is busy; retrying in ${wait} s.`,
      });
      break;
    }
    case 'done':
      endTurn(transcript, event);
      break;
  }
  markQueuedCalls(transcript);
  return transcript;
}

/**
 * Marks the calls that wait behind a call waiting for approval: after a `waiting` call (since the last
 * user message), each call that is `running` but has shown nothing of its own — no question, no
 * progress — is `queued`; a queued call whose blocker was answered is `running` again. A later call
 * that shows progress or asks did start (a response of read-only calls runs them side by side), so it
 * is never marked.
 */
function markQueuedCalls(transcript: Transcript): void {
  let blocked = false;
  for (const entry of transcript.entries) {
    if (entry.kind === 'user') blocked = false;
    if (entry.kind !== 'tool') continue;
    if (entry.status === 'running' || entry.status === 'queued') {
      const idle = entry.approval === undefined && entry.progress.length === 0;
      entry.status = blocked && idle ? 'queued' : 'running';
    }
    if (entry.status === 'waiting') blocked = true;
  }
}

/** The `remembered` of a `tool_approval_resolved`, when it is a well-formed rule. */
function readRememberedRule(value: unknown): ToolApproval['remembered'] {
  if (typeof value !== 'object' || value === null) return undefined;
  const { setting, rule } = value as Record<string, unknown>;
  return typeof setting === 'string' && typeof rule === 'string' ? { setting, rule } : undefined;
}

/** Whether the call asked for approval and has no answer yet. */
export function isAwaitingAnswer(call: ToolCallEntry): boolean {
  return call.approval !== undefined && call.approval.decision === undefined;
}

/**
 * The calls of a running turn that wait for an answer, from its record (`GET …/turns/current`): each
 * known call becomes `waiting`; an unknown one gets a card at the end, until the stream places it.
 * A call already answered in this transcript is left as it is (the record may be older than the stream).
 */
export function applyPendingApprovals(
  transcript: Transcript,
  pending: readonly PendingApproval[],
): Transcript {
  for (const request of pending) {
    const call = findToolCall(transcript, request.callId);
    if (call?.approval?.decision !== undefined) continue;
    const created = requestApproval(transcript, request);
    if (!call) created.fromRecord = true;
  }
  markQueuedCalls(transcript);
  return transcript;
}

function requestApproval(transcript: Transcript, request: PendingApproval): ToolCallEntry {
  let call = findToolCall(transcript, request.callId);
  if (!call) {
    call = {
      kind: 'tool',
      callId: request.callId,
      name: request.name,
      argumentsText: '',
      status: 'waiting',
      progress: [],
      // Its own group until the stream places it (a card from the turn record opens no response).
      step: request.callId,
    };
    transcript.entries.push(call);
  }
  if (call.argumentsText === '' && request.arguments !== undefined)
    call.argumentsText = JSON.stringify(request.arguments);
  call.status = 'waiting';
  call.approval = { reason: request.reason, expiresAt: request.expiresAt };
  return call;
}

/** What a denied call's card says until its `tool_result` brings the server's own message. */
const DENIAL_TEXT: Record<string, string> = {
  timeout: 'No answer came in time, so the call was denied.',
  cancel: 'The turn was cancelled while this call waited for approval.',
  interrupted: 'The server running this turn stopped while this call waited for approval.',
};

function resolveApproval(
  call: ToolCallEntry,
  answer: Required<Pick<ToolApproval, 'decision' | 'by'>> & Pick<ToolApproval, 'denialReason' | 'remembered'>,
): void {
  const { remembered, ...decided } = answer;
  call.approval = { ...(call.approval ?? { reason: '' }), ...decided };
  // The rule the answer's response already gave this page stays when the event has none to say.
  if (remembered !== undefined) call.approval.remembered = remembered;
  if (answer.decision === 'approved') {
    call.status = 'running';
    return;
  }
  call.status = 'failed';
  const byUser = answer.by === 'user';
  call.error = {
    classification: answer.by === 'cancel' || answer.by === 'interrupted' ? 'cancelled' : 'denied',
    message: byUser
      ? `The user denied this call${answer.denialReason ? `: ${answer.denialReason}` : '.'}`
      : (DENIAL_TEXT[answer.by] ?? 'The call was denied.'),
  };
}

/** Moves a card made from the turn record to the end, where the replayed stream now is. */
function placeCallFromRecord(transcript: Transcript, callId: string): ToolCallEntry | undefined {
  const index = transcript.entries.findIndex(
    (entry) => entry.kind === 'tool' && entry.callId === callId && entry.fromRecord === true,
  );
  if (index < 0) return undefined;
  const [call] = transcript.entries.splice(index, 1) as [ToolCallEntry];
  call.fromRecord = undefined;
  call.step = stepOf(transcript, callId);
  transcript.entries.push(call);
  return call;
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Adds a model call's usage (a `finish` event's, or a whole turn's) to the running turn's. */
export function addUsage(transcript: Transcript, usage: unknown): void {
  if (typeof usage !== 'object' || usage === null) return;
  const record = usage as Record<string, unknown>;
  const total = transcript.turnUsage ?? { inputTokens: 0, outputTokens: 0 };
  total.inputTokens += tokenCount(record.inputTokens);
  total.outputTokens += tokenCount(record.outputTokens);
  transcript.turnUsage = total;
}
