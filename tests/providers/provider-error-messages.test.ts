/**
 * HTTP failures become readable `finish` messages that never carry the API key
 * (an HTTP error is a finish error with a readable message, and no secret leaks). Servers and proxies do echo
 * the key they were sent (`Invalid key: sk-…`), and the message is persisted and shown to the user.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { PROVIDER_IDS, type ProviderId } from '../../src/contracts/provider-id.ts';
import { finishFromError, redactSecret } from '../../src/providers/finish-events.ts';
import { startReplayServer } from '../helpers/replay-server.ts';
import { CONFORMANCE_ADAPTERS } from './conformance/conformance-adapters.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

const KEY = 'sk-test-SECRET-0123456789';

const OPENAI_STYLE = '401 Incorrect API key provided: [redacted].';
/** What each adapter's user reads; keyed by id, so a new adapter needs its line here. */
const MESSAGES: { readonly [id in ProviderId]: string } = {
  openai: OPENAI_STYLE,
  'openai-compatible': OPENAI_STYLE,
  // The SDK quotes the JSON body; the provider's own sentence is what the user reads.
  anthropic: OPENAI_STYLE,
  gemini: OPENAI_STYLE,
  'gemini-generate-content': OPENAI_STYLE,
};

test('every adapter has its expected message', () => {
  expect(CONFORMANCE_ADAPTERS.map((adapter) => adapter.id)).toEqual([...PROVIDER_IDS]);
  expect(Object.keys(MESSAGES).sort()).toEqual([...PROVIDER_IDS].sort());
});

const adapters = CONFORMANCE_ADAPTERS.map(
  (adapter) =>
    [
      adapter.id,
      (baseUrl: string) => adapter.create(baseUrl, { apiKey: KEY }),
      MESSAGES[adapter.id],
    ] as const,
);

describe.each(adapters)('%s', (_name, create, message) => {
  test('a 401 whose body echoes the API key ends with error and the key redacted', async () => {
    server.enqueue({
      status: 401,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}.` } }),
    });
    const events = await collect(create(server.baseUrl).stream(makeRequest()));
    expect(events).toEqual([{ type: 'finish', reason: 'error', message }]);
    expect(JSON.stringify(events)).not.toContain('SECRET');
  });
});

describe('finishFromError', () => {
  test('a huge error body (a proxy HTML page) is collapsed to one line and cut at 500 characters', () => {
    const page = `<html>\n  <body>\n${'x'.repeat(2000)}\n  </body>\n</html>`;
    const error = Object.assign(new Error(page), { status: 502 });
    const expected = `502 <html> <body> ${'x'.repeat(2000)} </body> </html>`;
    expect(finishFromError(error, new AbortController().signal)).toEqual({
      type: 'finish',
      reason: 'error',
      message: `${expected.slice(0, 500)}… (${expected.length - 500} more characters)`,
    });
  });

  test('a key straddling the cut is redacted too', () => {
    const error = new Error(`${'y'.repeat(490)}${KEY}${'z'.repeat(100)}`);
    const finish = finishFromError(error, new AbortController().signal);
    expect(finish.type === 'finish' && redactSecret(finish.message ?? '', KEY)).toBe(
      `${'y'.repeat(490)}[redacted]… (${KEY.length + 100 - 10} more characters)`,
    );
  });
});
