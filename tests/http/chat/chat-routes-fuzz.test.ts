/**
 * Fuzz of the chat routes and `GET /api/providers`, like the settings fuzz: random JSON shapes, wrong
 * types, huge and deeply nested bodies, unicode (NUL, lone surrogates), path ids with `..`, encoded
 * slashes, broken escapes and overlong ids, on SQLite and PostgreSQL. Every response must be a 2xx, or
 * a 4xx with a JSON `{error, code}` (503 only as `provider_unavailable`); nothing is logged as a server
 * fault; afterwards every stored chat and message reads back.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ScriptedProvider, textResponse } from '../../helpers/scripted-provider.ts';
import { createRandom } from '../../helpers/seeded-random.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { createTestRegistry, FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const SEED = Number(process.env.MANGO_FUZZ_SEED ?? 20261130);
const ROUNDS = 300;
const STRINGS = [
  '',
  ' ',
  'x',
  'openai',
  'gemini',
  'ツール',
  '🔧🔧',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'a'.repeat(5000),
  '../../etc',
  '~',
  '~/../..',
  '/',
  '%00',
];
const CHAT_KEYS = ['title', 'provider', 'model', 'workingDirectory', 'unrestricted', 'systemPrompt'];

function fuzzValue(random: ReturnType<typeof createRandom>, depth: number): unknown {
  switch (random.integer(0, depth > 2 ? 4 : 6)) {
    case 0:
      return null;
    case 1:
      return random.next() < 0.5;
    case 2:
      return random.pick([0, -1, 1e308, 0.5, 2 ** 53 + 1]);
    case 3:
    case 4:
      return random.pick(STRINGS);
    case 5:
      return Array.from({ length: random.integer(0, 3) }, () => fuzzValue(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let index = random.integer(0, 3); index > 0; index--) {
        const key = random.pick([...CHAT_KEYS, 'message', '__proto__', 'constructor']);
        // defineProperty: an assignment to "__proto__" would set the prototype and never reach the JSON.
        Object.defineProperty(object, key, {
          value: fuzzValue(random, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
  }
}

/** A mostly plausible chat body: known keys with random values, sometimes an extra key. */
function chatBody(random: ReturnType<typeof createRandom>, workspace: string): unknown {
  const body: Record<string, unknown> = {
    provider: random.next() < 0.7 ? random.pick(['openai', 'gemini']) : fuzzValue(random, 2),
    model: random.next() < 0.6 ? 'model-1' : fuzzValue(random, 2),
  };
  for (const key of ['title', 'systemPrompt', 'workingDirectory', 'unrestricted']) {
    if (random.next() < 0.4) body[key] = fuzzValue(random, 2);
  }
  if (random.next() < 0.3) body.title = random.pick(STRINGS);
  if (random.next() < 0.3) body.model = random.pick(STRINGS);
  if (random.next() < 0.2) body.systemPrompt = random.pick(STRINGS);
  if (random.next() < 0.2) body.workingDirectory = random.pick([workspace, `${workspace}/..`, ...STRINGS]);
  if (random.next() < 0.05) body.unexpected = 1;
  return body;
}

function rawBody(random: ReturnType<typeof createRandom>, structured: () => unknown): string {
  switch (random.integer(0, 9)) {
    case 0:
      return JSON.stringify(structured()).slice(0, random.integer(0, 30)); // truncated
    case 1:
      return `${'['.repeat(5000)}${']'.repeat(5000)}`;
    case 2:
      return JSON.stringify({ message: 'y'.repeat(2 * 1024 * 1024) }); // over the limit
    case 3:
      return JSON.stringify(fuzzValue(random, 0));
    default:
      return JSON.stringify(structured());
  }
}

function chatId(random: ReturnType<typeof createRandom>, known: readonly string[]): string {
  const choice = random.integer(0, 9);
  if (choice < 4 && known.length > 0) return random.pick(known);
  return random.pick([
    crypto.randomUUID(),
    '..%2F..%2Fsettings',
    '%2e%2e',
    '%00',
    'a%00b',
    '%ED%A0%80',
    '%E0%A4%A',
    'x'.repeat(random.integer(150, 3000)),
    encodeURIComponent('ツール'),
    '%2F',
  ]);
}

describe.each(BACKENDS)('chat API fuzz on %s', (backend) => {
  let handle: TestDatabase;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let workspace: string;
  let token: string;
  let userId: string;
  const logged: string[] = [];

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'mango-chat-fuzz-')));
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry: createTestRegistry(),
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({
        openai: new ScriptedProvider([], { id: 'openai', record: false, repeat: textResponse('ok') }),
      }),
      log: (message) => logged.push(message),
    });
    app = createApp(deps);
    const created = await deps.users.create('fuzzer');
    token = created.token;
    userId = created.user.id;
    await deps.workspaces.grant(userId, workspace, false);
  }, 30_000);

  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  test(`${ROUNDS} random requests: only 2xx or 4xx with a JSON error (seed ${SEED})`, async () => {
    const random = createRandom(SEED);
    const known: string[] = [];
    const statuses = new Map<number, number>();
    for (let round = 0; round < ROUNDS; round++) {
      const kind = random.integer(0, 9);
      let method = 'GET';
      let pathname = '/api/providers';
      let body: string | undefined;
      if (kind <= 3) {
        method = 'POST';
        pathname = '/api/chats';
        body = rawBody(random, () => chatBody(random, workspace));
      } else if (kind <= 5) {
        method = 'POST';
        pathname = `/api/chats/${chatId(random, known)}/turns`;
        body = rawBody(random, () =>
          random.next() < 0.7 ? { message: random.pick(STRINGS) } : fuzzValue(random, 0),
        );
      } else if (kind === 6) {
        method = random.pick(['GET', 'DELETE', 'POST']);
        pathname = `/api/chats/${chatId(random, known)}${method === 'POST' ? '/cancel' : ''}`;
      } else if (kind === 7) {
        pathname = random.pick(['/api/chats', '/api/providers', '/api/chats?x=%00']);
      }
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) {
        headers['content-type'] = random.pick(['application/json', 'text/plain', '']);
        headers['content-length'] = String(Buffer.byteLength(body));
        if (headers['content-type'] === '') delete headers['content-type'];
      }
      const response = await app.handle(
        new Request(`http://localhost${pathname}`, { method, headers, body }),
      );
      const text = await response.text();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      const context = `round ${round}: ${method} ${pathname.slice(0, 80)} ${(body ?? '').slice(0, 120)} → ${text.slice(0, 200)}`;
      expect(response.status < 500 || response.status === 503, context).toBe(true);
      if (response.status >= 400) {
        expect(JSON.parse(text), context).toMatchObject({
          error: expect.any(String),
          code: expect.any(String),
        });
      }
      if (response.status === 503) expect(JSON.parse(text).code, context).toBe('provider_unavailable');
      if (response.status === 201) known.push((JSON.parse(text) as { id: string }).id);
    }
    for (const status of [200, 201, 400, 404, 413, 422]) {
      expect(statuses.get(status) ?? 0, `status ${status}`).toBeGreaterThan(0);
    }
    expect(logged).toEqual([]);
  }, 60_000);

  test('NUL or a lone surrogate: 422 invalid_request in a field, 404 not_found in an id', async () => {
    const headers = { authorization: `Bearer ${token}` };
    for (const field of ['title', 'model', 'systemPrompt']) {
      for (const bad of ['a\u0000b', '\ud800']) {
        const response = await app.handle(
          new Request('http://localhost/api/chats', {
            method: 'POST',
            headers,
            body: JSON.stringify({ provider: 'openai', model: 'model-1', [field]: bad }),
          }),
        );
        expect(response.status).toBe(422);
        expect(await response.json()).toEqual({
          error: `${field} must be valid Unicode text without NUL characters.`,
          code: 'invalid_request',
        });
      }
    }
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/cancel'],
    ] as const) {
      const response = await app.handle(
        new Request(`http://localhost/api/chats/a%00b${suffix}`, { method, headers }),
      );
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'No chat with id a\u0000b.', code: 'not_found' });
    }
  });

  test('afterwards every stored chat and message reads back and the list still works', async () => {
    const list = await app.handle(
      new Request('http://localhost/api/chats', { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(list.status).toBe(200);
    const chats = await deps.chats.listChats(userId);
    expect(chats.length).toBeGreaterThan(0);
    for (const chat of chats) {
      for (const text of [chat.title, chat.model, chat.systemPrompt ?? '']) {
        expect(text.includes('\u0000')).toBe(false);
        expect(text.isWellFormed()).toBe(true);
      }
      await deps.chats.getChat(userId, chat.id);
    }
  });
});
