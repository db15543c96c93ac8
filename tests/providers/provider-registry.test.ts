import { afterAll, describe, expect, test } from 'bun:test';
import { createProviderRegistry, isProviderId } from '../../src/providers/provider-registry.ts';
import { startReplayServer } from '../helpers/replay-server.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

describe('createProviderRegistry', () => {
  test('an empty environment lists every provider as unavailable, with the reason', () => {
    expect(createProviderRegistry({}).list()).toEqual([
      { id: 'openai', available: false, reason: 'OPENAI_API_KEY is not set.' },
      { id: 'openai-compatible', available: false, reason: 'OPENAI_COMPATIBLE_BASE_URL is not set.' },
      { id: 'gemini', available: false, reason: 'GEMINI_API_KEY is not set.' },
      { id: 'anthropic', available: false, reason: 'ANTHROPIC_API_KEY is not set.' },
    ]);
  });

  test('keys alone use the official endpoints; base URLs override them (trailing slashes dropped)', () => {
    const registry = createProviderRegistry({
      OPENAI_API_KEY: 'sk-1',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1/',
      GEMINI_API_KEY: 'g-1',
      GEMINI_BASE_URL: 'http://127.0.0.1:9000',
      ANTHROPIC_API_KEY: 'a-1',
    });
    expect(registry.list()).toEqual([
      { id: 'openai', available: true, baseURL: 'https://api.openai.com/v1' },
      { id: 'openai-compatible', available: true, baseURL: 'http://127.0.0.1:11434/v1' },
      { id: 'gemini', available: true, baseURL: 'http://127.0.0.1:9000' },
      { id: 'anthropic', available: true, baseURL: 'https://api.anthropic.com' },
    ]);
    for (const status of registry.list()) expect(registry.get(status.id)?.id).toBe(status.id);
    expect(registry.get('openai')).toBe(registry.get('openai')!);
  });

  const invalid: [string, Record<string, string>, string, string][] = [
    ['a blank key', { OPENAI_API_KEY: '   ' }, 'openai', 'OPENAI_API_KEY is not set.'],
    [
      'a base URL that is not a URL',
      { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'localhost:8080' },
      'anthropic',
      'ANTHROPIC_BASE_URL must be an http(s) URL.',
    ],
    [
      'a base URL with another scheme',
      { OPENAI_COMPATIBLE_BASE_URL: 'ftp://example.com' },
      'openai-compatible',
      'OPENAI_COMPATIBLE_BASE_URL must be an http(s) URL.',
    ],
    [
      'a key put in the base URL variable by mistake (never echoed: the reason is served to every user)',
      { OPENAI_COMPATIBLE_BASE_URL: 'sk-proj-SECRET' },
      'openai-compatible',
      'OPENAI_COMPATIBLE_BASE_URL must be an http(s) URL.',
    ],
    [
      'a base URL with embedded credentials',
      { OPENAI_COMPATIBLE_BASE_URL: 'https://user:SECRET@llm.example.com/v1' },
      'openai-compatible',
      'OPENAI_COMPATIBLE_BASE_URL must not embed credentials; set OPENAI_COMPATIBLE_API_KEY instead.',
    ],
    [
      'a base URL with a query (the SDK appends its paths after it)',
      { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'https://example.com/v1?api-version=1' },
      'openai',
      'OPENAI_BASE_URL must not have a query or fragment.',
    ],
    [
      'a base URL with a fragment',
      { ANTHROPIC_API_KEY: 'a', ANTHROPIC_BASE_URL: 'https://example.com/#x' },
      'anthropic',
      'ANTHROPIC_BASE_URL must not have a query or fragment.',
    ],
    [
      'a base URL without its key',
      { GEMINI_BASE_URL: 'http://127.0.0.1:1' },
      'gemini',
      'GEMINI_API_KEY is not set.',
    ],
  ];
  test.each(invalid)('%s: unavailable with the reason, get() gives undefined', (_label, env, id, reason) => {
    const registry = createProviderRegistry(env);
    expect(isProviderId(id)).toBe(true);
    if (!isProviderId(id)) return;
    expect(registry.status(id)).toEqual({ id, available: false, reason });
    expect(registry.get(id)).toBeUndefined();
  });

  test('the OpenAI-compatible provider needs no key and streams from its base URL', async () => {
    const registry = createProviderRegistry(
      { OPENAI_COMPATIBLE_BASE_URL: `${server.baseUrl}/v1` },
      { maxRetries: 0 },
    );
    server.enqueue({ body: chatBody({ text: 'Hello.' }) });
    const events = await collect(registry.get('openai-compatible')!.stream(makeRequest()));
    expect(events).toEqual([
      { type: 'text_delta', delta: 'Hello.' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 10, outputTokens: 5 } },
    ]);
    expect(server.requests.at(-1)?.headers.authorization).toBe('Bearer no-key');
    expect(server.failures).toEqual([]);
  });

  test('isProviderId accepts exactly the four ids', () => {
    expect(
      ['openai', 'openai-compatible', 'gemini', 'anthropic', 'OpenAI', 'ollama', 3].map(isProviderId),
    ).toEqual([true, true, true, true, false, false, false]);
  });
});
