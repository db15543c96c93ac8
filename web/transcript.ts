/**
 * The chat transcript as data: pure functions that fold stored history and live turn events
 * (docs/turns.md, "The event stream" — text_delta, tool_call_*, tool_result, tool_progress,
 * finish, done) into entries the chat view renders. Kept free of the DOM so it is unit-tested.
 */
import type { ChatMessage, TurnSummary, TurnUsage } from './api-client.ts';
import type { TurnStreamEvent } from './sse-parser.ts';

export type ToolCallStatus = 'streaming' | 'running' | 'succeeded' | 'failed';

export interface ToolCallEntry {
  kind: 'tool';
  callId: string;
  name: string;
  /** The raw argument JSON as it streamed in (complete once status leaves `streaming`). */
  argumentsText: string;
  status: ToolCallStatus;
  result?: unknown;
  error?: { classification?: string; message: string };
  durationMs?: number;
  progress: Record<string, unknown>[];
}

export type TranscriptEntry =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string }
  | ToolCallEntry
  | { kind: 'notice'; text: string; tone: 'info' | 'error' }
  /** The tokens a turn used, shown under its answer once it ended. */
  | ({ kind: 'usage' } & TurnUsage);

export interface Transcript {
  entries: TranscriptEntry[];
  /** True between sending a message and the turn's `done` (or the stream closing). */
  running: boolean;
  doneReason?: string;
  /** Tokens of the running turn's model calls so far (its `finish` events). */
  turnUsage?: TurnUsage;
}

export function emptyTranscript(): Transcript {
  return { entries: [], running: false };
}

function findToolCall(transcript: Transcript, callId: string): ToolCallEntry | undefined {
  for (let index = transcript.entries.length - 1; index >= 0; index -= 1) {
    const entry = transcript.entries[index]!;
    if (entry.kind === 'tool' && entry.callId === callId) return entry;
  }
  return undefined;
}

function appendAssistantText(transcript: Transcript, text: string): void {
  const last = transcript.entries.at(-1);
  if (last?.kind === 'assistant') last.text += text;
  else transcript.entries.push({ kind: 'assistant', text });
}

function readError(value: unknown): { classification?: string; message: string } {
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

/** Folds one live turn event into the transcript (mutates and returns it). Unknown types are ignored. */
export function applyTurnEvent(transcript: Transcript, event: TurnStreamEvent): Transcript {
  const callId = typeof event.callId === 'string' ? event.callId : '';
  switch (event.type) {
    case 'text_delta':
      if (typeof event.delta === 'string') appendAssistantText(transcript, event.delta);
      break;
    case 'tool_call_started':
      if (!findToolCall(transcript, callId)) {
        transcript.entries.push({
          kind: 'tool',
          callId,
          name: String(event.name ?? ''),
          argumentsText: '',
          status: 'streaming',
          progress: [],
        });
      }
      break;
    case 'tool_call_arguments_delta': {
      const call = findToolCall(transcript, callId);
      if (call && typeof event.delta === 'string') call.argumentsText += event.delta;
      break;
    }
    case 'tool_call_completed': {
      let call = findToolCall(transcript, callId);
      if (!call) {
        call = {
          kind: 'tool',
          callId,
          name: String(event.name ?? ''),
          argumentsText: '',
          status: 'running',
          progress: [],
        };
        transcript.entries.push(call);
      }
      if (typeof event.arguments === 'string') call.argumentsText = event.arguments;
      call.status = 'running';
      break;
    }
    case 'tool_progress': {
      const call = findToolCall(transcript, callId);
      if (call) call.progress.push(event);
      break;
    }
    case 'tool_result': {
      const call = findToolCall(transcript, callId);
      if (!call) break;
      call.durationMs = typeof event.durationMs === 'number' ? event.durationMs : undefined;
      // A replayed trace carries no payload: the stored message already gave the call its result.
      if (event.ok === true) {
        call.status = 'succeeded';
        if ('result' in event) call.result = event.result;
      } else {
        call.status = 'failed';
        if ('error' in event) call.error = readError(event.error);
      }
      break;
    }
    case 'finish':
      addUsage(transcript, event.usage);
      if (event.reason === 'error') {
        transcript.entries.push({
          kind: 'notice',
          tone: 'error',
          text: typeof event.message === 'string' ? `Provider error: ${event.message}` : 'Provider error.',
        });
      }
      break;
    case 'error':
      transcript.entries.push({
        kind: 'notice',
        tone: 'error',
        text: typeof event.message === 'string' ? event.message : 'The turn failed.',
      });
      break;
    case 'provider_retry':
      transcript.entries.push({
        kind: 'notice',
        tone: 'info',
        text: `The provider is busy; retrying in ${typeof event.waitSeconds === 'number' ? event.waitSeconds : '?'} s.`,
      });
      break;
    case 'done':
      finishTurn(
        transcript,
        typeof event.reason === 'string' ? event.reason : 'completed',
        typeof event.message === 'string' ? event.message : undefined,
        typeof event.finishReason === 'string' ? event.finishReason : undefined,
      );
      if (transcript.turnUsage) transcript.entries.push({ kind: 'usage', ...transcript.turnUsage });
      transcript.turnUsage = undefined;
      break;
  }
  return transcript;
}

function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** Adds a model call's usage (a `finish` event's, or a whole turn's) to the running turn's. */
function addUsage(transcript: Transcript, usage: unknown): void {
  if (typeof usage !== 'object' || usage === null) return;
  const record = usage as Record<string, unknown>;
  const total = transcript.turnUsage ?? { inputTokens: 0, outputTokens: 0 };
  total.inputTokens += tokenCount(record.inputTokens);
  total.outputTokens += tokenCount(record.outputTokens);
  transcript.turnUsage = total;
}

/**
 * Ends a turn: calls still open are marked cancelled and a notice explains a non-normal end (with
 * the server's `message` when it sent one).
 */
/** How a completed turn's `finishReason` is shown (the model's own reason for ending its answer). */
const FINISH_NOTICES: Record<string, { text: string; tone: 'info' | 'error' }> = {
  length: { text: 'The answer was cut at the output limit.', tone: 'info' },
  refusal: { text: 'The model refused.', tone: 'info' },
  content_filter: { text: "Stopped by the provider's content filter.", tone: 'error' },
};

export function finishTurn(
  transcript: Transcript,
  reason: string,
  message?: string,
  finishReason?: string,
): Transcript {
  transcript.running = false;
  transcript.doneReason = reason;
  for (const entry of transcript.entries) {
    if (entry.kind === 'tool' && (entry.status === 'streaming' || entry.status === 'running')) {
      entry.status = 'failed';
      entry.error = { classification: 'cancelled', message: 'The turn ended before this call finished.' };
    }
  }
  const notices: Record<string, string> = {
    cancelled: 'Turn cancelled.',
    max_iterations: 'Stopped: the turn reached its tool-call iteration limit.',
    error: 'The turn ended with an error.',
  };
  const finish = reason === 'completed' && finishReason ? FINISH_NOTICES[finishReason] : undefined;
  if (finish) {
    transcript.entries.push({
      kind: 'notice',
      tone: finish.tone,
      text: message ? `${finish.text} ${message}` : finish.text,
    });
    return transcript;
  }
  // The error was already shown when it happened (the provider's `finish`, or the `error` event):
  // `done` repeats it, and showing it again would say it twice.
  if (reason === 'error' && turnHasErrorNotice(transcript)) return transcript;
  // The server's cancel message is a full sentence of its own ("The turn was cancelled.").
  const notice =
    reason === 'cancelled'
      ? (message ?? notices.cancelled)
      : notices[reason] !== undefined && message
        ? `${notices[reason]} ${message}`
        : notices[reason];
  if (notice)
    transcript.entries.push({
      kind: 'notice',
      tone: reason === 'cancelled' ? 'info' : 'error',
      text: notice,
    });
  return transcript;
}

/** Whether an error notice was added since the turn's user message. */
function turnHasErrorNotice(transcript: Transcript): boolean {
  for (let index = transcript.entries.length - 1; index >= 0; index -= 1) {
    const entry = transcript.entries[index]!;
    if (entry.kind === 'user') return false;
    if (entry.kind === 'notice' && entry.tone === 'error') return true;
  }
  return false;
}

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
    const { message } = step;
    const item = conversationItem(message);
    if (!item) {
      // A plain `{role, content: string}` row still renders as text.
      if (typeof message.content === 'string' && (message.role === 'user' || message.role === 'assistant')) {
        transcript.entries.push({ kind: message.role, text: message.content });
      }
      continue;
    }
    switch (item.type) {
      case 'user_text':
        transcript.entries.push({ kind: 'user', text: String(item.text ?? '') });
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
        });
        break;
      case 'tool_result': {
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
  transcript.running = false;
  // A stored call without a stored result was interrupted (server stopped mid-call).
  for (const entry of transcript.entries) {
    if (entry.kind === 'tool' && entry.status === 'running') {
      entry.status = 'failed';
      entry.error = { classification: 'cancelled', message: 'No result was recorded for this call.' };
    }
  }
  return transcript;
}
