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
      { id: 'gemini-generate-content', available: false, reason: 'GEMINI_API_KEY is not set.' },
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
      { id: 'gemini-generate-content', available: true, baseURL: 'http://127.0.0.1:9000' },
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

  test('isProviderId accepts exactly the five ids', () => {
    expect(
      [
        'openai',
        'openai-compatible',
        'gemini',
        'gemini-generate-content',
        'anthropic',
        'OpenAI',
        'ollama',
        3,
      ].map(isProviderId),
    ).toEqual([true, true, true, true, true, false, false, false]);
  });

  test('Vertex AI: GOOGLE_GENAI_USE_VERTEXAI selects it; the project is required, the location defaults to global', () => {
    expect(
      createProviderRegistry({ GOOGLE_GENAI_USE_VERTEXAI: 'true' }).status('gemini-generate-content'),
    ).toEqual({
      id: 'gemini-generate-content',
      available: false,
      reason: 'GOOGLE_CLOUD_PROJECT is not set (GOOGLE_GENAI_USE_VERTEXAI is on).',
    });
    expect(
      createProviderRegistry({ GOOGLE_GENAI_USE_VERTEXAI: 'yes', GOOGLE_CLOUD_PROJECT: 'p' }).status(
        'gemini-generate-content',
      ),
    ).toEqual({
      id: 'gemini-generate-content',
      available: false,
      reason: 'GOOGLE_GENAI_USE_VERTEXAI must be true or false.',
    });
    expect(
      createProviderRegistry({ GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'p' }).status(
        'gemini-generate-content',
      ),
    ).toEqual({
      id: 'gemini-generate-content',
      available: true,
      baseURL: 'https://aiplatform.googleapis.com',
    });
    const regional = createProviderRegistry({
      GOOGLE_GENAI_USE_VERTEXAI: 'true',
      GOOGLE_CLOUD_PROJECT: 'p',
      GOOGLE_CLOUD_LOCATION: 'europe-west4',
    });
    expect(regional.status('gemini-generate-content')).toEqual({
      id: 'gemini-generate-content',
      available: true,
      baseURL: 'https://europe-west4-aiplatform.googleapis.com',
    });
    expect(regional.get('gemini-generate-content')?.id).toBe('gemini-generate-content');
    expect(
      createProviderRegistry({
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GOOGLE_CLOUD_PROJECT: 'p',
        GOOGLE_CLOUD_LOCATION: 'us central',
      }).status('gemini-generate-content').reason,
    ).toBe('GOOGLE_CLOUD_LOCATION must be a region name such as us-central1 or global.');
  });

  test('Vertex AI through the registry: the request carries the project path and the injected token', async () => {
    const registry = createProviderRegistry(
      {
        GOOGLE_GENAI_USE_VERTEXAI: 'true',
        GOOGLE_CLOUD_PROJECT: 'proj-1',
        GOOGLE_CLOUD_LOCATION: 'global',
        GOOGLE_VERTEX_BASE_URL: server.baseUrl,
      },
      {
        maxRetries: 0,
        // A stubbed token: Google's token endpoint cannot be reached from tests.
        vertexAuthOptions: {
          authClient: { getRequestHeaders: async () => new Headers({ authorization: 'Bearer stub' }) },
        } as unknown as NonNullable<Parameters<typeof createProviderRegistry>[1]>['vertexAuthOptions'],
      },
    );
    server.enqueue({
      body: 'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"finishReason":"STOP"}]}\n\n',
    });
    const events = await collect(registry.get('gemini-generate-content')!.stream(makeRequest()));
    expect(events).toEqual([
      { type: 'text_delta', delta: 'Hi' },
      { type: 'finish', reason: 'stop' },
    ]);
    const request = server.requests.at(-1)!;
    expect(request.path).toBe(
      '/v1beta1/projects/proj-1/locations/global/publishers/google/models/test-model:streamGenerateContent',
    );
    expect(request.headers.authorization).toBe('Bearer stub');
    expect(server.failures).toEqual([]);
  });

  const malformedSettings: [string, string, string][] = [
    ['MANGO_PROVIDER_IDLE_TIMEOUT_SECONDS', '0', 'an integer from 1 to 86400 (seconds), got "0"'],
    ['MANGO_PROVIDER_FIRST_EVENT_TIMEOUT_SECONDS', '2.5', 'an integer from 1 to 86400 (seconds), got "2.5"'],
    ['MANGO_PROVIDER_MAX_RETRIES', '11', 'an integer from 0 to 10, got "11"'],
    ['MANGO_PROVIDER_RETRY_MAX_WAIT_SECONDS', 'soon', 'an integer from 0 to 86400 (seconds), got "soon"'],
  ];
  test.each(malformedSettings)(
    'a malformed %s stops startup with what it expects and got',
    (name, value, expected) => {
      expect(() => createProviderRegistry({ [name]: value })).toThrow(`${name} must be ${expected}.`);
    },
  );
});
