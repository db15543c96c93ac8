/**
 * The byte-level watch over one provider request: every SDK client is built with `watchedFetch`, and
 * each model request runs inside `withStreamWatch`, so whatever SDK makes the HTTP call, this module
 * sees the response and every body chunk. It guarantees:
 * - a time-to-first-event limit (request sent → first body byte) and an idle limit (between any two
 *   received chunks, keep-alive pings included, however slowly the consumer reads): when one passes, the request is aborted, the body
 *   errors and `watch.stall` says which limit passed, so the turn ends with that message instead of
 *   hanging forever;
 * - the status and `Retry-After` of the last response are recorded for the retry policy, whatever the
 *   SDK makes of them (some SDKs drop headers from their errors);
 * - the body text can be observed (Chat Completions needs to know whether `data: [DONE]` arrived).
 * A request made outside `withStreamWatch` fails: an unwatched request could hang a turn forever.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { defaultOf, type VariableName } from '../config/environment-variables.ts';
import { MangoError } from '../errors/mango-error.ts';

export interface StreamTimeouts {
  /** Request sent → first body byte, in milliseconds. */
  firstEventMs: number;
  /** Longest silence between two received chunks, in milliseconds. */
  idleMs: number;
}

/** The operator variables that set the two limits (named in the messages so the fix is obvious). */
export const FIRST_EVENT_TIMEOUT_VARIABLE: VariableName = 'MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS';
export const IDLE_TIMEOUT_VARIABLE: VariableName = 'MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS';

export const DEFAULT_STREAM_TIMEOUTS: StreamTimeouts = {
  firstEventMs: defaultOf('MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS') * 1000,
  idleMs: defaultOf('MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS') * 1000,
};

export interface ObservedResponse {
  status: number;
  /** `Retry-After` (or `retry-after-ms`) in seconds, when the response carried one. */
  retryAfterSeconds?: number;
}

/** One request's watch: what the fetch saw, and the stall that ended it, if any. */
export class StreamWatch {
  readonly timeouts: StreamTimeouts;
  /** The one-line reason a stall limit ended the request. */
  stall: string | undefined;
  response: ObservedResponse | undefined;
  /** Called with each decoded body chunk. */
  onText: ((text: string) => void) | undefined;

  constructor(timeouts: StreamTimeouts, onText?: (text: string) => void) {
    this.timeouts = timeouts;
    this.onText = onText;
  }
}

const activeWatch = new AsyncLocalStorage<StreamWatch>();

/** Runs `open` (which makes the SDK call) with `watch` applied to the request it makes. */
export function withStreamWatch<T>(watch: StreamWatch, open: () => Promise<T>): Promise<T> {
  return activeWatch.run(watch, open);
}

function seconds(milliseconds: number): string {
  return `${Math.round(milliseconds / 100) / 10} s`;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date; `retry-after-ms` wins when present. */
export function readRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get('retry-after-ms');
  if (milliseconds !== null && /^\d+(\.\d+)?$/.test(milliseconds.trim())) return Number(milliseconds) / 1000;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

class StallError extends MangoError {
  override name = 'ProviderStallError';
  constructor(message: string, options?: ErrorOptions) {
    super('provider_stalled', message, options);
  }
}

/**
 * A `fetch` for SDK clients that applies the active request's watch. `baseFetch` is the real fetch
 * (tests never replace it; it is a parameter so the SDK's own default is not relied on).
 */
export function watchedFetch(baseFetch: typeof fetch = fetch): typeof fetch {
  const watched = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const watch = activeWatch.getStore();
    if (!watch) throw new Error('A provider request was made outside a watched stream; it was not sent.');
    // Some SDKs pass a `Request` that carries the signal, others an init.
    const callerSignal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
    const limits = createStallLimits(watch, callerSignal);
    const firstEventMessage =
      `The provider sent nothing within ${seconds(watch.timeouts.firstEventMs)} of the request ` +
      `(${FIRST_EVENT_TIMEOUT_VARIABLE}); the request was stopped.`;
    limits.stallAfter(watch.timeouts.firstEventMs, firstEventMessage);

    let response: Response;
    try {
      response = await baseFetch(input, { ...init, signal: limits.signal });
    } catch (error) {
      limits.stop();
      throw error;
    }
    const retryAfterSeconds = readRetryAfter(response.headers);
    watch.response = {
      status: response.status,
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
    const source = response.body;
    if (!source) {
      limits.stop();
      return response;
    }
    return new Response(watchedBody(source, watch, limits), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
  return watched as typeof fetch;
}

/** The stall limits of one request, and the signal that stops it (when they run out or the caller aborts). */
interface StallLimits {
  signal: AbortSignal;
  /** (Re)starts the limit: after `milliseconds` without another call the request stalls with `message`. */
  stallAfter(milliseconds: number, message: string): void;
  /** Clears the limit and lets go of the caller's signal. */
  stop(): void;
  /** How a stall also fails the response body, once there is one. */
  failBody: ((error: Error) => void) | undefined;
}

function createStallLimits(watch: StreamWatch, callerSignal: AbortSignal | null | undefined): StallLimits {
  const controller = new AbortController();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const limits: StallLimits = {
    signal: controller.signal,
    failBody: undefined,
    stallAfter(milliseconds, message) {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        watch.stall = message;
        const error = new StallError(message);
        limits.failBody?.(error);
        controller.abort(error);
      }, milliseconds);
      // A limit never keeps the process alive by itself (a shutdown must not wait for it).
      (timer as { unref?: () => void }).unref?.();
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
  return limits;
}

/**
 * The response body as the SDK reads it: the source is read as fast as it arrives, whatever the
 * consumer's pace, so the idle limit measures the provider's silence and never a slow reader
 * downstream; every chunk restarts the limit and is shown to the watch as text.
 */
function watchedBody(
  source: ReadableStream<Uint8Array>,
  watch: StreamWatch,
  limits: StallLimits,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const idleMessage =
    `The provider stopped sending for ${seconds(watch.timeouts.idleMs)} in the middle of its response ` +
    `(${IDLE_TIMEOUT_VARIABLE}); the request was stopped.`;
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    start(streamController) {
      limits.failBody = (error) => {
        try {
          streamController.error(error);
        } catch {
          // the body already ended
        }
        reader.cancel(error).catch(() => undefined);
      };
      const pump = async () => {
        try {
          for (;;) {
            const chunk = await reader.read();
            if (watch.stall || cancelled) return;
            if (chunk.done) {
              limits.stop();
              watch.onText?.(decoder.decode());
              streamController.close();
              return;
            }
            limits.stallAfter(watch.timeouts.idleMs, idleMessage);
            watch.onText?.(decoder.decode(chunk.value, { stream: true }));
            streamController.enqueue(chunk.value);
          }
        } catch (error) {
          limits.stop();
          if (!watch.stall && !cancelled) streamController.error(error);
        }
      };
      void pump();
    },
    cancel(reason) {
      cancelled = true;
      limits.stop();
      return reader.cancel(reason);
    },
  });
}
