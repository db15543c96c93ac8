/**
 * The one open-retry-translate loop every provider adapter runs its requests through
 * (`openAndTranslate`), with the client options and policy it reads, and `streamingProvider`, which
 * makes an adapter's `ModelProvider` from its SDK call and its stream translation.
 */
import type { ProviderEvent } from '../contracts/provider-event.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import { finishFromError, readableMessage, redactSecret } from './finish-events.ts';
import type { ModelProvider, ModelRequest } from './model-provider.ts';
import {
  abortableSleep,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_WAIT_SECONDS,
  retryDecision,
  type StreamRetryOptions,
} from './provider-retry.ts';
import {
  DEFAULT_STREAM_TIMEOUTS,
  type StreamTimeouts,
  StreamWatch,
  withStreamWatch,
} from './stream-watch.ts';

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
export function streamRetryOptionsOf(options: ProviderClientOptions): StreamRetryOptions {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
    maxWaitSeconds: options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS,
    timeouts: options.timeouts ?? DEFAULT_STREAM_TIMEOUTS,
    sleep: options.sleep ?? abortableSleep,
  };
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 10 * 60 * 1000;

/** Everything `openAndTranslate` needs for one model request. */
export interface StreamRequest<Event> {
  signal: AbortSignal;
  /** Makes the SDK call; runs inside the request's stream watch, once per attempt. */
  open: () => Promise<AsyncIterable<Event>>;
  translate: (events: AsyncIterable<Event>) => AsyncIterable<ProviderEvent>;
  policy: StreamRetryOptions;
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

/** How an adapter serves one request: the SDK call that opens its stream and how to read that stream. */
export interface AdapterStream<Event> {
  /** Makes the SDK call; runs inside the request's stream watch, once per attempt. */
  open: () => Promise<AsyncIterable<Event>>;
  translate: (events: AsyncIterable<Event>) => AsyncIterable<ProviderEvent>;
  /** Sees the response body text as it arrives (each attempt). */
  observe?: (text: string) => void;
}

/** Who a provider is and what its messages must never show. */
export interface StreamingProviderIdentity {
  id: ProviderId;
  options: ProviderClientOptions;
  /** The credential redacted from every message; undefined when the client holds no key (Vertex AI). */
  secret: string | undefined;
}

/**
 * The `ModelProvider` of an adapter: every request runs through `openAndTranslate` with the client's
 * retry and stall policy, so an adapter states only how to open and read its SDK's stream.
 */
export function streamingProvider<Event>(
  identity: StreamingProviderIdentity,
  streamFor: (request: ModelRequest) => AdapterStream<Event>,
): ModelProvider {
  const policy = streamRetryOptionsOf(identity.options);
  const { id, secret } = identity;
  return {
    id,
    stream(request: ModelRequest): AsyncGenerator<ProviderEvent> {
      return openAndTranslate<Event>({
        signal: request.signal,
        policy,
        ...(secret === undefined ? {} : { secret }),
        ...streamFor(request),
      });
    },
  };
}
