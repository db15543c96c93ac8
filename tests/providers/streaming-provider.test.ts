/**
 * `streamingProvider` makes an adapter's `ModelProvider`: each request gets its own open and translate
 * from the adapter, runs under the client's retry policy, and has the named credential redacted from
 * its messages (none when the adapter names none, as for Vertex AI).
 */
import { describe, expect, test } from 'bun:test';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { ModelRequest } from '../../src/providers/model-provider.ts';
import { streamingProvider } from '../../src/providers/streaming-provider.ts';
import { collect } from './provider-test-support.ts';

const KEY = 'sk-test-0123456789';

function request(model: string): ModelRequest {
  return { model, history: [], tools: [], signal: new AbortController().signal };
}

async function* events(...items: string[]): AsyncGenerator<string> {
  for (const item of items) yield item;
}

/** An adapter whose "SDK events" are strings: each becomes a text delta, then it finishes with `stop`. */
async function* translate(items: AsyncIterable<string>): AsyncGenerator<ProviderEvent> {
  for await (const item of items) yield { type: 'text_delta', delta: item };
  yield { type: 'finish', reason: 'stop' };
}

const options = { apiKey: KEY, baseURL: 'http://127.0.0.1:1', maxRetries: 1, sleep: async () => {} };

describe('streamingProvider', () => {
  test('reports its id and asks the adapter for each request anew', async () => {
    const asked: string[] = [];
    const provider = streamingProvider<string>({ id: 'anthropic', options, secret: KEY }, (req) => {
      asked.push(req.model);
      return { open: async () => events(`answer of ${req.model}`, ''), translate };
    });
    expect(provider.id).toBe('anthropic');
    expect(await collect(provider.stream(request('m1')))).toEqual([
      { type: 'text_delta', delta: 'answer of m1' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(await collect(provider.stream(request('m2')))).toEqual([
      { type: 'text_delta', delta: 'answer of m2' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(asked).toEqual(['m1', 'm2']);
  });

  test('a failed opening is retried under the client policy, and the key is redacted from the message', async () => {
    let opened = 0;
    const provider = streamingProvider<string>({ id: 'openai', options, secret: KEY }, () => ({
      open: async () => {
        opened += 1;
        throw Object.assign(new Error(`503 upstream refused key ${KEY}`), { status: 503 });
      },
      translate,
    }));
    expect(await collect(provider.stream(request('m')))).toEqual([
      { type: 'provider_retry', attempt: 1, waitSeconds: 0.5 },
      {
        type: 'finish',
        reason: 'error',
        message: '503 upstream refused key [redacted] Gave up after 1 retry.',
      },
    ]);
    expect(opened).toBe(2);
  });

  test('with no credential named, nothing is redacted', async () => {
    const provider = streamingProvider<string>(
      { id: 'gemini-generate-content', options: { ...options, maxRetries: 0 }, secret: undefined },
      () => ({
        open: async () => {
          throw new Error(`400 bad request ${KEY}`);
        },
        translate,
      }),
    );
    expect(await collect(provider.stream(request('m')))).toEqual([
      { type: 'finish', reason: 'error', message: `400 bad request ${KEY}` },
    ]);
  });
});
