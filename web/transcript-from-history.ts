/**
 * A transcript rebuilt from what the server stored: the chat's messages, with each turn's trace
 * (progress, durations, retries, errors, usage) put back where it happened, through the same fold the
 * live stream uses, so a reload shows what was seen live, once.
 */
import type { ChatMessage, TurnSummary } from './api-client.ts';
import type { TurnStreamEvent } from './sse-parser.ts';
import {
  addUsage,
  appendAssistantText,
  applyTurnEvent,
  emptyTranscript,
  findToolCall,
  readError,
  stepOf,
  type Transcript,
} from './transcript.ts';

const CONVERSATION_TYPES = new Set(['user_text', 'assistant_text', 'tool_call', 'tool_result']);

/** Extracts the provider-neutral history item a stored message holds, whatever its envelope. */
function conversationItem(message: ChatMessage): Record<string, unknown> | undefined {
  const candidates = [message.item, message.content, message as unknown];
  for (const candidate of candidates) {
    let value = candidate;
    if (typeof value === 'string') {
      try {
        value = JSON.parse(value);
      } catch {
        continue;
      }
    }
    if (
      typeof value === 'object' &&
      value !== null &&
      CONVERSATION_TYPES.has(String((value as { type?: unknown }).type))
    ) {
      return value as Record<string, unknown>;
    }
  }
  return undefined;
}

/** `tool_result.output` is the serialized envelope sent to the model; recover result or error from it. */
function parseToolOutput(
  output: unknown,
  ok: boolean,
): { result?: unknown; error?: { classification?: string; message: string } } {
  let value: unknown = output;
  if (typeof output === 'string') {
    try {
      value = JSON.parse(output);
    } catch {
      value = output;
    }
  }
  if (ok) {
    const record = value as Record<string, unknown> | null;
    return {
      result:
        record && typeof record === 'object' && record.ok === true && 'result' in record
          ? record.result
          : value,
    };
  }
  const record = value as Record<string, unknown> | null;
  return {
    error: readError(record && typeof record === 'object' && 'error' in record ? record.error : value),
  };
}

/** A stored message, or a turn event replayed after the message it followed. */
type HistoryStep =
  | { kind: 'message'; position: number; message: ChatMessage }
  | { kind: 'event'; position: number; event: TurnStreamEvent; usage?: unknown };

/**
 * The turns' traces (or, for a turn from before traces, how it ended and its usage) placed after the
 * message each event followed live: the turn's `at`-th message, and never before its user message,
 * which the page showed before any event.
 */
function traceSteps(turns: readonly TurnSummary[]): HistoryStep[] {
  const steps: HistoryStep[] = [];
  const ordered = [...turns].sort((left, right) => left.messageSeqAtStart - right.messageSeqAtStart);
  ordered.forEach((turn, index) => {
    if (turn.state === 'running') return;
    const events = turn.progress?.events;
    if (Array.isArray(events)) {
      for (const entry of events) {
        const at = typeof entry.at === 'number' ? Math.max(1, entry.at) : 1;
        steps.push({
          kind: 'event',
          position: turn.messageSeqAtStart + at,
          event: entry.event as TurnStreamEvent,
        });
      }
      return;
    }
    const end = ordered[index + 1]?.messageSeqAtStart ?? Number.POSITIVE_INFINITY;
    const reason = turn.state === 'lost' ? 'error' : turn.state;
    steps.push({
      kind: 'event',
      position: end,
      event: { type: 'done', reason, ...(turn.error ? { message: turn.error.message } : {}) },
      usage: turn.usage,
    });
  });
  return steps;
}

/**
 * Builds the transcript of a stored chat (`GET /api/chats/:id`): its messages in order, with each
 * ended turn's trace folded in where it happened, so it shows what the live stream showed.
 */
export function transcriptFromHistory(
  messages: readonly ChatMessage[],
  turns: readonly TurnSummary[] = [],
): Transcript {
  const transcript = emptyTranscript();
  const steps: HistoryStep[] = messages.map((message, index) => ({
    kind: 'message',
    position: message.seq ?? index + 1,
    message,
  }));
  // A message goes before the events that followed it (stable sort keeps each turn's own order).
  steps.push(...traceSteps(turns));
  steps.sort(
    (left, right) =>
      left.position - right.position || (left.kind === right.kind ? 0 : left.kind === 'message' ? -1 : 1),
  );
  for (const step of steps) {
    if (step.kind === 'event') {
      addUsage(transcript, step.usage);
      applyTurnEvent(transcript, step.event);
      continue;
    }
    applyStoredMessage(transcript, step.message);
  }
  transcript.running = false;
  transcript.openStep = undefined;
  // A stored call without a stored result was interrupted (server stopped mid-call).
  for (const entry of transcript.entries) {
    if (
      entry.kind === 'tool' &&
      (entry.status === 'running' || entry.status === 'waiting' || entry.status === 'queued')
    ) {
      entry.status = 'failed';
      entry.error = { classification: 'cancelled', message: 'No result was recorded for this call.' };
    }
  }
  return transcript;
}

/** One stored message as the transcript shows it: its text, a call, or a call's result. */
function applyStoredMessage(transcript: Transcript, message: ChatMessage): void {
  const item = conversationItem(message);
  if (!item) {
    // A plain `{role, content: string}` row still renders as text.
    if (typeof message.content === 'string' && (message.role === 'user' || message.role === 'assistant')) {
      transcript.entries.push({ kind: message.role, text: message.content });
    }
    return;
  }
  switch (item.type) {
    case 'user_text':
      transcript.entries.push({
        kind: 'user',
        text: String(item.text ?? ''),
        ...attachmentsOf(item.attachments),
      });
      break;
    case 'assistant_text':
      appendAssistantText(transcript, String(item.text ?? ''));
      break;
    case 'tool_call':
      transcript.entries.push({
        kind: 'tool',
        callId: String(item.callId ?? ''),
        name: String(item.name ?? ''),
        argumentsText:
          typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {}),
        status: 'running',
        progress: [],
        step: stepOf(transcript, String(item.callId ?? '')),
      });
      break;
    case 'tool_result': {
      // Stored calls carry no response: a call after a result is the next response's.
      transcript.openStep = undefined;
      const call = findToolCall(transcript, String(item.callId ?? ''));
      if (!call) break;
      const ok = item.ok === true;
      const parsed = parseToolOutput(item.output ?? item.result ?? item.error, ok);
      call.status = ok ? 'succeeded' : 'failed';
      call.result = parsed.result;
      call.error = parsed.error;
      if (typeof item.durationMs === 'number') call.durationMs = item.durationMs;
      break;
    }
  }
}

/** A stored message's attachments as the transcript keeps them (their paths); nothing when it has none. */
function attachmentsOf(value: unknown): { attachments?: string[] } {
  if (!Array.isArray(value)) return {};
  const paths = value.flatMap((entry) =>
    typeof entry === 'object' && entry !== null && typeof (entry as { path?: unknown }).path === 'string'
      ? [(entry as { path: string }).path]
      : [],
  );
  return paths.length === 0 ? {} : { attachments: paths };
}
