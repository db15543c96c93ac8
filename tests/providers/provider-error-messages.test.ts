/**
 * HTTP failures become readable `finish` messages that never carry the API key
 * (an HTTP error is a finish error with a readable message, and no secret leaks). Servers and proxies do echo
 * the key they were sent (`Invalid key: sk-…`), and the message is persisted and shown to the user.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createAnthropicMessagesProvider } from '../../src/providers/anthropic-messages-provider.ts';
import { finishFromError, redactSecret } from '../../src/providers/finish-events.ts';
import { createGeminiInteractionsProvider } from '../../src/providers/gemini-interactions-provider.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses-provider.ts';
import { startReplayServer } from '../helpers/replay-server.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

const KEY = 'sk-test-SECRET-0123456789';

const OPENAI_STYLE = '401 Incorrect API key provided: [redacted].';
const adapters: [name: string, create: (baseUrl: string) => ModelProvider, message: string][] = [
  [
    'openai',
    (baseUrl) => createOpenAIResponsesProvider({ apiKey: KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 }),
    OPENAI_STYLE,
  ],
  [
    'openai-compatible',
    (baseUrl) => createOpenAIChatProvider({ apiKey: KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 }),
    OPENAI_STYLE,
  ],
  [
    'anthropic',
    (baseUrl) => createAnthropicMessagesProvider({ apiKey: KEY, baseURL: baseUrl, maxRetries: 0 }),
    // The SDK quotes the JSON body; the provider's own sentence is what the user reads.
    OPENAI_STYLE,
  ],
  [
    'gemini',
    (baseUrl) => createGeminiInteractionsProvider({ apiKey: KEY, baseURL: baseUrl, maxRetries: 0 }),
    OPENAI_STYLE,
  ],
];

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
