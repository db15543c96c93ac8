/**
 * The `finish` events every adapter ends its stream with, written once: a failure turned into one
 * readable line (an adapter never throws once its stream has started), refusals, content filters and
 * cut streams, the token usage they carry, and the redaction of the API key from any message.
 */
import type { AnswerFinishReason, ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';

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
 * The `finish` for the reason the provider gave, with the usage when it is known. A refusal and a
 * content filter say so in the message, because the user otherwise sees a cut or empty answer;
 * `detail` is the provider's own reason for a content filter (e.g. `SAFETY`).
 */
export function finishWithReason(
  reason: AnswerFinishReason,
  usage?: TokenUsage,
  detail?: string,
): ProviderEvent {
  const message =
    reason === 'refusal'
      ? 'The model refused the request.'
      : reason === 'content_filter'
        ? `The provider's content filter stopped the answer${detail ? ` (${detail})` : ''}.`
        : undefined;
  return {
    type: 'finish',
    reason,
    ...(message === undefined ? {} : { message }),
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
