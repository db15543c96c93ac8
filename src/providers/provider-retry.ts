/**
 * The one retry policy for every provider (the SDKs' own retries are off, so a wait is never hidden
 * inside an SDK): a request that failed before its stream opened is retried when the failure is
 * transient — a connection that failed, or HTTP 408, 409, 429, 5xx — at most `maxRetries` times. The
 * wait is the response's `Retry-After` when it sent one, else a short exponential backoff. A
 * `Retry-After` longer than `maxWaitSeconds` is not waited for: the request fails with a message that
 * names the wait, so the user knows when to try again. Stalls and aborts are never retried.
 */
import { defaultOf, type VariableName } from '../config/environment-variables.ts';
import type { StreamTimeouts, StreamWatch } from './stream-watch.ts';

export const DEFAULT_MAX_RETRIES = defaultOf('MANGO_PROVIDER_MAX_RETRIES');
export const DEFAULT_MAX_RETRY_WAIT_SECONDS = defaultOf('MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS');
export const RETRY_MAX_WAIT_VARIABLE: VariableName = 'MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS';

export interface StreamRetryOptions {
  maxRetries: number;
  maxWaitSeconds: number;
  timeouts: StreamTimeouts;
  sleep: (milliseconds: number, signal: AbortSignal) => Promise<void>;
}

export type RetryDecision =
  | { retry: true; waitSeconds: number }
  /** `reason`: why a transient failure was not retried, appended to the failure's message. */
  | { retry: false; reason?: string };

const TRANSIENT_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

/** Backoff without `Retry-After`: 0.5 s, 1 s, 2 s… capped at 8 s. */
function backoffSeconds(attempt: number): number {
  return Math.min(8, 0.5 * 2 ** (attempt - 1));
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && /abort/i.test(error.name);
}

/** Whether the failed attempt number `attempt` (1-based) is retried, and after how long. */
export function retryDecision(
  error: unknown,
  watch: StreamWatch,
  attempt: number,
  policy: Pick<StreamRetryOptions, 'maxRetries' | 'maxWaitSeconds'>,
): RetryDecision {
  const response = watch.response;
  if (response === undefined) {
    // No response at all: the connection failed (refused, reset, DNS). An abort is the caller's.
    if (isAbort(error)) return { retry: false };
  } else if (!TRANSIENT_STATUSES.has(response.status)) {
    return { retry: false };
  }
  const asked = response?.retryAfterSeconds;
  if (asked !== undefined && asked > policy.maxWaitSeconds) {
    return {
      retry: false,
      reason:
        `The provider asked to retry after ${Math.ceil(asked)} s, longer than the ${policy.maxWaitSeconds} s ` +
        `this server waits (${RETRY_MAX_WAIT_VARIABLE}); try again later.`,
    };
  }
  if (attempt > policy.maxRetries) {
    return policy.maxRetries > 0
      ? {
          retry: false,
          reason: `Gave up after ${policy.maxRetries} ${policy.maxRetries === 1 ? 'retry' : 'retries'}.`,
        }
      : { retry: false };
  }
  return { retry: true, waitSeconds: asked ?? backoffSeconds(attempt) };
}

/** Resolves after `milliseconds`, or at once when `signal` aborts. */
export function abortableSleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, milliseconds);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
