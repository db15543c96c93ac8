/**
 * Mechanics every provider adapter shares, written once: the `""` → `"{}"` rule for argument text,
 * turning any failure into the final `finish` event (an adapter never throws once its stream has
 * started), the one open-retry-translate loop with its shared rules (`openAndTranslate`), the finish
 * events for refusals, content filters and cut streams, holding a call until the output limit is known,
 * and reading a tool call's arguments as an object for providers whose history wants one.
 */

import type { ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';
import {
  abortableSleep,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_SECONDS,
  retryDecision,
  type StreamPolicy,
} from './provider-retry.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  type StreamTimeouts,
  StreamWatch,
  withStreamWatch,
} from './stream-watch.ts';

/** Arguments as the model produced them, with "no arguments" (`""`, whitespace) normalized to `"{}"`. */
export function normalizeToolArguments(raw: string | undefined | null): string {
  if (raw === undefined || raw === null || raw.trim() === '') return '{}';
  return raw;
}

/**
 * Arguments text as a JSON object for providers whose history carries objects (Anthropic `input`,
 * Gemini `arguments`). Text that is not a JSON object (the model sent invalid JSON, which the loop
 * answered with `validation_failed`) is replayed as `{}`: the provider refuses anything else, and the
 * tool result that follows tells the model what went wrong.
 */
export function parseArgumentsObject(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // fall through: invalid JSON
  }
  return {};
}

/** Longest failure message kept; error bodies can be whole HTML pages from a proxy. */
const MAX_ERROR_MESSAGE_LENGTH = 500;

/** One readable line: whitespace runs collapsed, cut at `MAX_ERROR_MESSAGE_LENGTH` with the count left out. */
export function readableMessage(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX_ERROR_MESSAGE_LENGTH) return line;
  return `${line.slice(0, MAX_ERROR_MESSAGE_LENGTH)}… (${line.length - MAX_ERROR_MESSAGE_LENGTH} more characters)`;
}

/**
 * A message whose tail is a JSON error body (some SDKs quote the whole body) reduced to the body's own
 * `error.message`, so the user reads the provider's sentence rather than escaped JSON.
 */
function unwrapJsonBody(message: string): string {
  const start = message.indexOf('{');
  if (start < 0) return message;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: { message?: unknown }; message?: unknown };
    const inner = parsed.error?.message ?? parsed.message;
    if (typeof inner === 'string' && inner.trim() !== '') return `${message.slice(0, start)}${inner}`.trim();
  } catch {
    // not JSON: keep the message as it is
  }
  return message;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    const message = unwrapJsonBody(error.message.trim()) || error.name;
    return readableMessage(
      typeof status === 'number' && !message.startsWith(String(status)) ? `${status} ${message}` : message,
    );
  }
  return readableMessage(String(error));
}

function isAbortError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'AbortError' || error.name === 'APIUserAbortError' || error.name === 'RequestAbortedError'
  );
}

/** The `finish` event for a failure: `cancelled` when the caller aborted, `error` with a message otherwise. */
export function finishFromError(error: unknown, signal: AbortSignal, usage?: TokenUsage): ProviderEvent {
  if (signal.aborted || isAbortError(error))
    return { type: 'finish', reason: 'cancelled', ...(usage ? { usage } : {}) };
  return { type: 'finish', reason: 'error', message: describeError(error), ...(usage ? { usage } : {}) };
}

/** The text that replaces a secret in a message. */
export const REDACTED = '[redacted]';

/** `message` with every occurrence of `secret` replaced by `[redacted]` (secrets shorter than 4 chars are not searched). */
export function redactSecret(message: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return message;
  let result = message.split(secret).join(REDACTED);
  // A long message is cut (`readableMessage`): a key straddling the cut leaves its prefix before `… (`.
  for (let length = secret.length - 1; length >= 4; length -= 1) {
    result = result.split(`${secret.slice(0, length)}… (`).join(`${REDACTED}… (`);
  }
  return result;
}

/** Everything `openAndTranslate` needs for one model request. */
export interface StreamRequest<Event> {
  signal: AbortSignal;
  /** Makes the SDK call; runs inside the request's stream watch, once per attempt. */
  open: () => Promise<AsyncIterable<Event>>;
  translate: (events: AsyncIterable<Event>) => AsyncIterable<ProviderEvent>;
  policy: StreamPolicy;
  /** The API key, redacted from every message. */
  secret?: string;
  /** Sees the response body text as it arrives (each attempt). */
  observe?: (text: string) => void;
}

/**
 * The adapter contract, once for every adapter: opens the SDK stream under a stall watch, retries a
 * failed opening as the retry policy says (announcing each wait with `provider_retry`), and translates
 * the stream. Whatever happens, the caller sees `ProviderEvent`s ending in one `finish`, never a throw.
 * The shared rules live here: empty text deltas are dropped; every finish message is one readable line
 * with the API key redacted (servers and proxies echo the key they were sent in error bodies, and the
 * message is persisted and shown to users); a stall ends the stream with the limit that passed.
 */
export async function* openAndTranslate<Event>(request: StreamRequest<Event>): AsyncGenerator<ProviderEvent> {
  const { signal, policy, secret } = request;
  for (let attempt = 1; ; attempt += 1) {
    const watch = new StreamWatch(policy.timeouts, request.observe);
    const shared = (event: ProviderEvent): ProviderEvent | undefined => {
      if (event.type === 'text_delta' && event.delta === '') return undefined;
      if (event.type !== 'finish') return event;
      if (watch.stall && !signal.aborted && (event.reason === 'error' || event.reason === 'cancelled')) {
        return {
          type: 'finish',
          reason: 'error',
          message: watch.stall,
          ...(event.usage ? { usage: event.usage } : {}),
        };
      }
      if (event.message === undefined) return event;
      return { ...event, message: redactSecret(readableMessage(event.message), secret) };
    };
    let events: AsyncIterable<Event>;
    try {
      events = await withStreamWatch(watch, request.open);
    } catch (error) {
      const decision =
        signal.aborted || watch.stall ? undefined : retryDecision(error, watch, attempt, policy);
      if (decision?.retry) {
        yield { type: 'provider_retry', attempt, waitSeconds: decision.waitSeconds };
        await policy.sleep(decision.waitSeconds * 1000, signal);
        if (!signal.aborted) continue;
      }
      let finish = finishFromError(error, signal);
      if (
        finish.type === 'finish' &&
        finish.reason === 'error' &&
        decision?.retry === false &&
        decision.reason
      ) {
        finish = { ...finish, message: `${finish.message} ${decision.reason}` };
      }
      const event = shared(finish);
      if (event) yield event;
      return;
    }
    for await (const raw of request.translate(events)) {
      const event = shared(raw);
      if (event) yield event;
    }
    return;
  }
}

/** The `finish` event for a stream that ended before the provider said it was complete. */
export function finishForTruncatedStream(signal: AbortSignal, usage?: TokenUsage): ProviderEvent {
  if (signal.aborted) return { type: 'finish', reason: 'cancelled' };
  return {
    type: 'finish',
    reason: 'error',
    message: 'The provider stream ended before the response was complete.',
    ...(usage ? { usage } : {}),
  };
}

/**
 * The `finish` for an answer the provider's safety system stopped or withheld (`detail`: the provider's
 * own reason, e.g. `SAFETY`). The message says so, because the user otherwise sees a cut or empty answer.
 */
export function finishForContentFilter(usage?: TokenUsage, detail?: string): ProviderEvent {
  return {
    type: 'finish',
    reason: 'content_filter',
    message: `The provider's content filter stopped the answer${detail ? ` (${detail})` : ''}.`,
    ...(usage ? { usage } : {}),
  };
}

/** The `finish` for a model that declined to answer (its refusal text was streamed as text). */
export function finishForRefusal(usage?: TokenUsage): ProviderEvent {
  return {
    type: 'finish',
    reason: 'refusal',
    message: 'The model refused the request.',
    ...(usage ? { usage } : {}),
  };
}

/** Drops `undefined` token counts so events compare and serialize cleanly. */
export function makeUsage(inputTokens: number | null | undefined, outputTokens: number | null | undefined) {
  const usage: TokenUsage = {};
  if (typeof inputTokens === 'number') usage.inputTokens = inputTokens;
  if (typeof outputTokens === 'number') usage.outputTokens = outputTokens;
  return Object.keys(usage).length > 0 ? usage : undefined;
}

/** SDK retry and timeout knobs every adapter accepts. */
export interface ProviderClientOptions {
  apiKey: string;
  /** Absolute base URL; tests point it at a replay server. */
  baseURL: string;
  /**
   * Retries of a request that failed before its stream opened (default 2). The SDKs' own retries are
   * off: `openAndTranslate` is the one retry loop.
   */
  maxRetries?: number;
  /** Longest `Retry-After` waited for, in seconds (default 60); a longer one fails the turn. */
  maxRetryWaitSeconds?: number;
  /** The stall limits (default `DEFAULT_STREAM_TIMEOUTS`). */
  timeouts?: StreamTimeouts;
  /** Waits between retries; tests pass one that records the wait instead of sleeping. */
  sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
  /** Whole-request timeout in milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

/** The retry and stall policy of a client's requests, defaults filled in. */
export function streamPolicyOf(options: ProviderClientOptions): StreamPolicy {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxWaitSeconds: options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS,
    timeouts: options.timeouts ?? DEFAULT_STREAM_TIMEOUTS,
    sleep: options.sleep ?? abortableSleep,
  };
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Holds back the last completed tool call until the stream shows the output limit did not cut it: a
 * call stopped by `max_tokens` / `incomplete` must never be completed: its arguments are cut.
 * Counts the calls it released, which decides `tool_calls` versus `stop`.
 */
export class HeldCallCompletion {
  #held: Extract<ProviderEvent, { type: 'tool_call_completed' }> | undefined;
  /** How many calls have been released so far. */
  released = 0;

  /** Holds `event`, replacing any call still held (the caller releases before a new block starts). */
  hold(event: Extract<ProviderEvent, { type: 'tool_call_completed' }>): void {
    this.#held = event;
  }

  /** Drops the held call: the output limit cut it. */
  discard(): void {
    this.#held = undefined;
  }

  /** Yields the held call, if any: the stream went on, so it was whole. */
  *release(): Generator<ProviderEvent> {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    this.released += 1;
    yield held;
  }
}
