import { describe, expect, test } from 'bun:test';
import { abortableSleep, retryDecision } from '../../src/providers/provider-retry.ts';
import { DEFAULT_STREAM_TIMEOUTS, readRetryAfter, StreamWatch } from '../../src/providers/stream-watch.ts';

function watchWith(response?: StreamWatch['response']): StreamWatch {
  const watch = new StreamWatch(DEFAULT_STREAM_TIMEOUTS);
  watch.response = response;
  return watch;
}

const policy = { maxRetries: 2, maxWaitSeconds: 60 };

describe('readRetryAfter', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  test.each<[Record<string, string>, number | undefined]>([
    [{ 'retry-after': '30' }, 30],
    [{ 'retry-after': '1.5' }, 1.5],
    [{ 'retry-after': 'Tue, 01 Dec 2026 12:02:00 GMT' }, 120],
    [{ 'retry-after': 'Tue, 01 Dec 2026 11:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after-ms': '250', 'retry-after': '30' }, 0.25],
    [{}, undefined],
  ])('%p → %p seconds', (headers, expected) => {
    expect(readRetryAfter(new Headers(headers), now)).toBe(expected);
  });
});

describe('retryDecision', () => {
  test('transient statuses and connection failures are retried with backoff when no wait was asked', () => {
    expect(retryDecision(new Error('x'), watchWith({ status: 503 }), 1, policy)).toEqual({
      retry: true,
      waitSeconds: 0.5,
    });
    expect(retryDecision(new Error('x'), watchWith({ status: 429 }), 2, policy)).toEqual({
      retry: true,
      waitSeconds: 1,
    });
    expect(retryDecision(new TypeError('fetch failed'), watchWith(), 1, policy)).toEqual({
      retry: true,
      waitSeconds: 0.5,
    });
  });

  test('client errors and aborts are not retried', () => {
    for (const status of [400, 401, 403, 404, 422]) {
      expect(retryDecision(new Error('x'), watchWith({ status }), 1, policy)).toEqual({ retry: false });
    }
    const abort = Object.assign(new Error('aborted'), { name: 'AbortError' });
    expect(retryDecision(abort, watchWith(), 1, policy)).toEqual({ retry: false });
  });

  test('Retry-After is honoured up to the cap; past it the reason names the wait', () => {
    expect(
      retryDecision(new Error('x'), watchWith({ status: 429, retryAfterSeconds: 60 }), 1, policy),
    ).toEqual({
      retry: true,
      waitSeconds: 60,
    });
    expect(
      retryDecision(new Error('x'), watchWith({ status: 429, retryAfterSeconds: 120.2 }), 1, policy),
    ).toEqual({
      retry: false,
      reason:
        'The provider asked to retry after 121 s, longer than the 60 s this server waits (MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS); try again later.',
    });
  });

  test('attempts past maxRetries give up with the count; zero retries gives up silently', () => {
    expect(retryDecision(new Error('x'), watchWith({ status: 500 }), 3, policy)).toEqual({
      retry: false,
      reason: 'Gave up after 2 retries.',
    });
    expect(
      retryDecision(new Error('x'), watchWith({ status: 500 }), 1, { maxRetries: 0, maxWaitSeconds: 60 }),
    ).toEqual({
      retry: false,
    });
  });
});

describe('abortableSleep', () => {
  test('an abort ends the wait at once', async () => {
    const controller = new AbortController();
    const waiting = abortableSleep(60_000, controller.signal);
    controller.abort();
    await waiting;
    await abortableSleep(60_000, controller.signal);
    expect(controller.signal.aborted).toBe(true);
  });
});
