/**
 * The rules every adapter shares (`openAndTranslate`, `stream-watch.ts`, `provider-retry.ts`), run for
 * every adapter in the conformance list through its SDK and the replay server: the idle and
 * time-to-first-event limits end a stalled stream with a message naming the limit; a transient failure
 * is retried after its `Retry-After` with a `provider_retry` event (the SDKs' own retries are off, so
 * the server sees exactly the requests this policy makes); a `Retry-After` past the cap fails at once
 * with the wait named; error messages are one line with the key redacted.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { type ReplayStep, startReplayServer } from '../helpers/replay-server.ts';
import { CONFORMANCE_ADAPTERS } from './conformance/conformance-adapters.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

const usage = { inputTokens: 10, outputTokens: 5 };
/** Short limits for the stall cases only: the server stays silent until the client gives up. */
const stallLimits = { firstEventMs: 300, idleMs: 300 };

function jsonError(status: number, message: string, headers: Record<string, string> = {}): ReplayStep {
  return {
    status,
    headers: { 'content-type': 'application/json', ...headers },
    chunks: [
      JSON.stringify({
        error: { message, type: 'rate_limit_error', code: status, status: 'RESOURCE_EXHAUSTED' },
      }),
    ],
  };
}

for (const adapter of CONFORMANCE_ADAPTERS) {
  describe(`${adapter.id} (${adapter.api})`, () => {
    const textBody = adapter.wire({ text: 'Hello.', ending: 'stop' });
    if (typeof textBody !== 'string') throw new Error('every wire format expresses a plain answer');

    test('a provider that goes silent mid-stream is stopped by the idle limit', async () => {
      const chunks = textBody.split(/(?<=\n\n)/);
      server.enqueue({ chunks: chunks.slice(0, 1), ending: 'hang' });
      const events = await collect(
        adapter
          .create(server.baseUrl, { timeouts: { firstEventMs: 30_000, idleMs: 300 } })
          .stream(makeRequest()),
      );
      expect(events.at(-1)).toMatchObject({
        type: 'finish',
        reason: 'error',
        message:
          'The provider stopped sending for 0.3 s in the middle of its response (MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS); the request was stopped.',
      });
      expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
      expect(server.failures).toEqual([]);
    });

    test('a consumer slower than the idle limit is not mistaken for a silent provider', async () => {
      server.enqueue({ body: textBody });
      const events: ProviderEvent[] = [];
      const provider = adapter.create(server.baseUrl, { timeouts: { firstEventMs: 30_000, idleMs: 300 } });
      for await (const event of provider.stream(makeRequest())) {
        if (events.length === 0) await Bun.sleep(900); // fixture: a consumer busy for 0.9 s with the first event
        events.push(event);
      }
      expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage });
    });

    test('a provider that sends nothing is stopped by the time-to-first-event limit, without a retry', async () => {
      const before = server.requests.length;
      server.enqueue({ chunks: [], ending: 'hang' });
      const events = await collect(
        adapter.create(server.baseUrl, { timeouts: stallLimits, maxRetries: 2 }).stream(makeRequest()),
      );
      expect(events).toEqual([
        {
          type: 'finish',
          reason: 'error',
          message:
            'The provider sent nothing within 0.3 s of the request (MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS); the request was stopped.',
        },
      ]);
      expect(server.requests.length - before).toBe(1);
    });

    test('a 429 with Retry-After is retried once after that wait, announced with provider_retry', async () => {
      const waits: number[] = [];
      const before = server.requests.length;
      server.enqueue(jsonError(429, 'slow down', { 'retry-after': '7' }), { body: textBody });
      const provider = adapter.create(server.baseUrl, {
        maxRetries: 2,
        sleep: async (milliseconds) => void waits.push(milliseconds),
      });
      const events = await collect(provider.stream(makeRequest()));
      expect(events).toEqual([
        { type: 'provider_retry', attempt: 1, waitSeconds: 7 },
        { type: 'text_delta', delta: 'Hello.' },
        { type: 'finish', reason: 'stop', usage },
      ] satisfies ProviderEvent[]);
      expect(waits).toEqual([7000]);
      expect(server.requests.length - before).toBe(2);
      expect(server.failures).toEqual([]);
    });

    test('a Retry-After past the cap is not waited for: the turn fails naming the wait', async () => {
      const waits: number[] = [];
      const before = server.requests.length;
      server.enqueue(jsonError(429, 'quota exhausted', { 'retry-after': '120' }));
      const provider = adapter.create(server.baseUrl, {
        maxRetries: 2,
        maxRetryWaitSeconds: 60,
        sleep: async (milliseconds) => void waits.push(milliseconds),
      });
      const events = await collect(provider.stream(makeRequest()));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'finish', reason: 'error' });
      const message = (events[0] as { message: string }).message;
      expect(message).toContain('quota exhausted');
      expect(message).toEndWith(
        'The provider asked to retry after 120 s, longer than the 60 s this server waits (MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS); try again later.',
      );
      expect(waits).toEqual([]);
      expect(server.requests.length - before).toBe(1);
    });

    test('retries stop after maxRetries with the count in the message', async () => {
      const waits: number[] = [];
      server.enqueue(jsonError(503, 'busy'), jsonError(503, 'busy'));
      const provider = adapter.create(server.baseUrl, {
        maxRetries: 1,
        sleep: async (milliseconds) => void waits.push(milliseconds),
      });
      const events = await collect(provider.stream(makeRequest()));
      expect(events[0]).toEqual({ type: 'provider_retry', attempt: 1, waitSeconds: 0.5 });
      expect(events[1]).toMatchObject({ type: 'finish', reason: 'error' });
      expect((events[1] as { message: string }).message).toEndWith('Gave up after 1 retry.');
      expect(events).toHaveLength(2);
      expect(waits).toEqual([500]);
    });

    test('a proxy page that echoes the key over several lines becomes one line with the key redacted', async () => {
      server.enqueue({
        status: 401,
        headers: { 'content-type': 'text/html' },
        chunks: [
          '<html>\n<body>\n  Incorrect API key\n  provided: test-key-12345.\n\n  See the docs.\n</body>\n</html>',
        ],
      });
      const events = await collect(adapter.create(server.baseUrl).stream(makeRequest()));
      expect(events).toHaveLength(1);
      const message = (events[0] as { message: string }).message;
      expect(events[0]).toMatchObject({ type: 'finish', reason: 'error' });
      expect(message).toContain('Incorrect API key provided: [redacted]. See the docs.');
      expect(message).toStartWith('401');
      expect(message).not.toContain('\n');
      expect(message).not.toContain('test-key-12345');
    });
  });
}
