/**
 * `GET /api/providers/:id/models` over the real provider registry and SDKs, pointed at a replay server
 * that answers `/v1/models`, on both backends: the ids come back sorted, the list is cached per provider
 * until its TTL passes, and every failure is a specific status with a one-line reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../../../src/http/app.ts';
import { createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { createProviderRegistry } from '../../../src/providers/provider-registry.ts';
import { type ReplayServer, startReplayServer } from '../../helpers/replay-server.ts';
import { createTestRegistry, FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const TTL_MS = 60_000;
const json = { 'content-type': 'application/json' };

describe.each(BACKENDS)('GET /api/providers/:id/models on %s', (backend) => {
  let handle: TestDatabase;
  let replay: ReplayServer;
  let app: ReturnType<typeof createApp>;
  let token: string;
  let clock = FIXED_NOW;

  async function get(path: string, withToken = true) {
    const headers: Record<string, string> = withToken ? { authorization: `Bearer ${token}` } : {};
    const response = await app.handle(new Request(`http://localhost${path}`, { headers }));
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    replay = startReplayServer();
    const deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry: createTestRegistry(),
      now: () => clock,
      log: () => {},
      modelCatalogTtlMs: TTL_MS,
      providers: createProviderRegistry({
        OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: replay.baseUrl,
        MANGO_PROVIDER_MAX_RETRIES: '0',
      }),
    });
    app = createApp(deps);
    token = (await deps.users.create('alice')).token;
  }, 30_000);
  afterAll(async () => {
    await replay.close();
    await handle.dispose();
  });

  test('lists the ids /v1/models answers, sorted, then serves them from the cache until the TTL', async () => {
    const list = JSON.stringify({
      object: 'list',
      data: [
        { id: 'qwen3-32b', object: 'model', created: 0, owned_by: 'me' },
        { id: 'llama-3.3-70b', object: 'model', created: 0, owned_by: 'me' },
      ],
    });
    replay.enqueue({ body: list, headers: json }, { body: list, headers: json });
    const first = await get('/api/providers/openai-compatible/models');
    expect(first).toEqual({
      status: 200,
      body: {
        provider: 'openai-compatible',
        models: ['llama-3.3-70b', 'qwen3-32b'],
        fetchedAt: new Date(FIXED_NOW).toISOString(),
      },
    });
    expect(replay.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /v1/models']);

    clock = FIXED_NOW + TTL_MS - 1;
    expect((await get('/api/providers/openai-compatible/models')).body.fetchedAt).toBe(
      new Date(FIXED_NOW).toISOString(),
    );
    expect(replay.requests).toHaveLength(1);

    clock = FIXED_NOW + TTL_MS;
    expect((await get('/api/providers/openai-compatible/models')).body.fetchedAt).toBe(
      new Date(FIXED_NOW + TTL_MS).toISOString(),
    );
    expect(replay.requests).toHaveLength(2);
    expect(replay.failures).toEqual([]);
  });

  test('Anthropic models come through its SDK with the key', async () => {
    replay.enqueue({
      headers: json,
      body: JSON.stringify({
        data: [
          {
            type: 'model',
            id: 'claude-sonnet-4-5',
            display_name: 'Sonnet',
            created_at: '2025-01-01T00:00:00Z',
          },
          {
            type: 'model',
            id: 'claude-haiku-4-5',
            display_name: 'Haiku',
            created_at: '2025-01-01T00:00:00Z',
          },
        ],
        has_more: false,
        first_id: 'claude-sonnet-4-5',
        last_id: 'claude-haiku-4-5',
      }),
    });
    const answer = await get('/api/providers/anthropic/models');
    expect(answer.status).toBe(200);
    expect(answer.body.models).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-5']);
    const request = replay.requests.at(-1)!;
    expect(request.path).toBe('/v1/models');
    expect(request.headers.authorization).toBe('Bearer test-key');
  });

  test('a provider that answers with an error is a 502 with its reason, and is asked again next time', async () => {
    const before = replay.requests.length;
    clock += 10 * TTL_MS;
    replay.enqueue({
      status: 500,
      headers: json,
      body: JSON.stringify({ error: { message: 'backend down', type: 'server_error' } }),
    });
    const failed = await get('/api/providers/openai-compatible/models');
    expect(failed.status).toBe(502);
    expect(failed.body.code).toBe('model_list_failed');
    expect(failed.body.error).toStartWith('openai-compatible did not list its models: 500');
    const list = JSON.stringify({
      object: 'list',
      data: [{ id: 'm1', object: 'model', created: 0, owned_by: 'x' }],
    });
    replay.enqueue({ body: list, headers: json });
    expect((await get('/api/providers/openai-compatible/models')).body.models).toEqual(['m1']);
    expect(replay.requests.length - before).toBe(2);
  });

  test('an unconfigured provider is a 503 naming the variable; an unknown id a 404; no token a 401', async () => {
    expect(await get('/api/providers/openai/models')).toEqual({
      status: 503,
      body: {
        code: 'provider_unavailable',
        error: 'Provider "openai" is not available: OPENAI_API_KEY is not set.',
      },
    });
    const unknown = await get('/api/providers/mistral/models');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      code: 'not_found',
      error:
        'No provider "mistral"; expected one of: openai, openai-compatible, gemini, gemini-generate-content, anthropic.',
    });
    expect((await get('/api/providers/openai-compatible/models', false)).status).toBe(401);
  });
});
