/**
 * Mechanics every provider adapter shares (design: "Provider … SDK stream → ProviderEvent stream";
 * style rule 6): the `""` → `"{}"` rule for argument text, turning any failure into the final `finish`
 * event (an adapter never throws once its stream has started), and reading a tool call's arguments as
 * an object for providers whose history wants one.
 */
import type { ProviderEvent, TokenUsage } from './types.ts';

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
function readableMessage(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= MAX_ERROR_MESSAGE_LENGTH) return line;
  return `${line.slice(0, MAX_ERROR_MESSAGE_LENGTH)}… (${line.length - MAX_ERROR_MESSAGE_LENGTH} more characters)`;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const status = (error as { status?: unknown }).status;
    const message = error.message.trim() || error.name;
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

/**
 * The adapter contract's opening half: opens the SDK stream and translates it, and a request that fails
 * before its first event (HTTP error, unreachable server, abort) ends as a `finish` event instead of a throw.
 * Servers and proxies echo the key they were sent in their error bodies, and the finish message is
 * persisted and shown to users: `secret` (the API key) is redacted from it.
 */
export async function* openAndTranslate<Event>(
  signal: AbortSignal,
  open: () => Promise<AsyncIterable<Event>>,
  translate: (events: AsyncIterable<Event>) => AsyncIterable<ProviderEvent>,
  secret?: string,
): AsyncGenerator<ProviderEvent> {
  const redacted = (event: ProviderEvent): ProviderEvent =>
    event.type === 'finish' && event.message !== undefined
      ? { ...event, message: redactSecret(event.message, secret) }
      : event;
  let events: AsyncIterable<Event>;
  try {
    events = await open();
  } catch (error) {
    yield redacted(finishFromError(error, signal));
    return;
  }
  for await (const event of translate(events)) yield redacted(event);
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
  /** SDK retries before the first byte (default 2). */
  maxRetries?: number;
  /** Request timeout in milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * Holds back the last completed tool call until the stream shows the output limit did not cut it: a
 * call stopped by `max_tokens` / `incomplete` must never be completed (issue 7, "a stream cut mid-call").
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
