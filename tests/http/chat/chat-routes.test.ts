/**
 * The chat API in process over SQLite, with a scripted provider behind a stub provider registry:
 * status codes of every route, per-user isolation, a turn as text/event-stream, cancel, and
 * GET /api/providers (availability and reason, never a key or base URL).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ScriptedProvider, textResponse } from '../../helpers/scripted-provider.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { createTestRegistry, FIXED_NOW } from '../../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

let handle: TestDatabase;
let deps: AppDependencies;
let app: ReturnType<typeof createApp>;
let workspace: string;
let alice: string;
let bob: string;
const provider = new ScriptedProvider([textResponse('Hello '), textResponse('again')], { id: 'openai' });

async function call(method: string, pathname: string, token: string, body?: unknown) {
  const response = await app.handle(
    new Request(`http://localhost${pathname}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  const text = await response.text();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // SSE or empty bodies stay text.
  }
  return { status: response.status, json, text, contentType: response.headers.get('content-type') };
}

beforeAll(async () => {
  handle = await createTestDatabase('sqlite');
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'mango-chat-routes-')));
  deps = createAppDependencies({
    config: handle.config,
    database: handle.database,
    registry: createTestRegistry(),
    now: () => FIXED_NOW,
    providers: createStubProviderRegistry(
      { openai: provider },
      { baseURL: 'http://127.0.0.1:9/secret-base' },
    ),
    log: () => {},
  });
  app = createApp(deps);
  const created = await deps.users.create('alice');
  alice = created.token;
  await deps.workspaces.grant(created.user.id, workspace, false);
  bob = (await deps.users.create('bob')).token;
}, 30_000);

afterAll(async () => {
  await handle.dispose();
  await rm(workspace, { recursive: true, force: true });
});

describe('chat API', () => {
  test('GET /api/providers reports availability and reasons, never base URLs', async () => {
    const { status, json } = await call('GET', '/api/providers', alice);
    expect(status).toBe(200);
    expect(json).toEqual({
      providers: [
        { id: 'openai', available: true },
        { id: 'openai-compatible', available: false, reason: 'OPENAI-COMPATIBLE_API_KEY is not set.' },
        { id: 'gemini', available: false, reason: 'GEMINI_API_KEY is not set.' },
        {
          id: 'gemini-generate-content',
          available: false,
          reason: 'GEMINI-GENERATE-CONTENT_API_KEY is not set.',
        },
        { id: 'anthropic', available: false, reason: 'ANTHROPIC_API_KEY is not set.' },
      ],
    });
  });

  test('create (201), list, show, stream a turn, show its history, delete (204), then 404', async () => {
    const created = await call('POST', '/api/chats', alice, {
      title: 'First',
      provider: 'openai',
      model: 'gpt-test',
      workingDirectory: workspace,
    });
    expect(created.status).toBe(201);
    const chat = created.json as { id: string; confined: boolean; workingDirectory: string };
    expect(chat).toMatchObject({ title: 'First', provider: 'openai', model: 'gpt-test', confined: true });

    expect(
      ((await call('GET', '/api/chats', alice)).json as { chats: { id: string }[] }).chats.map(
        (item) => item.id,
      ),
    ).toEqual([chat.id]);
    expect(((await call('GET', '/api/chats', bob)).json as { chats: unknown[] }).chats).toEqual([]);

    const turn = await call('POST', `/api/chats/${chat.id}/turns`, alice, { message: 'Hi' });
    expect(turn.status).toBe(200);
    expect(turn.contentType).toBe('text/event-stream; charset=utf-8');
    const events = turn.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
    const text = events.filter((event) => event.type === 'text_delta').map((event) => event.delta);
    expect(text.join('')).toBe('Hello ');
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });

    const shown = await call('GET', `/api/chats/${chat.id}`, alice);
    expect(shown.status).toBe(200);
    const messages = (shown.json as { messages: { item: unknown }[] }).messages.map(
      (message) => message.item,
    );
    expect(messages).toEqual([
      { type: 'user_text', text: 'Hi' },
      { type: 'assistant_text', text: 'Hello ' },
    ]);

    expect((await call('POST', `/api/chats/${chat.id}/cancel`, alice)).json).toEqual({
      cancelled: false,
      reason: 'No turn is running in this chat.',
    });
    expect((await call('GET', `/api/chats/${chat.id}`, bob)).status).toBe(404);
    expect((await call('DELETE', `/api/chats/${chat.id}`, bob)).status).toBe(404);
    expect((await call('DELETE', `/api/chats/${chat.id}`, alice)).status).toBe(204);
    expect((await call('GET', `/api/chats/${chat.id}`, alice)).json).toMatchObject({ code: 'not_found' });
  });

  test.each([
    ['no model', { provider: 'openai' }, 400, 'invalid_request'],
    ['an unknown key', { provider: 'openai', model: 'm', color: 'red' }, 400, 'invalid_request'],
    ['malformed JSON', '{"provider":', 400, 'malformed_json'],
    ['an unknown provider', { provider: 'nope', model: 'm' }, 422, 'invalid_request'],
    [
      'a directory outside every workspace root',
      { provider: 'openai', model: 'm', workingDirectory: '/' },
      422,
      'invalid_working_directory',
    ],
  ])('POST /api/chats with %s → %i %s', async (_name, body, status, code) => {
    const response = await call('POST', '/api/chats', alice, body);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ code });
  });

  test('a turn on an unconfigured provider → 503 provider_unavailable with the reason', async () => {
    const created = await call('POST', '/api/chats', alice, { provider: 'gemini', model: 'g' });
    const id = (created.json as { id: string }).id;
    const turn = await call('POST', `/api/chats/${id}/turns`, alice, { message: 'Hi' });
    expect(turn.status).toBe(503);
    expect(turn.json).toEqual({
      error: 'Provider "gemini" is not available: GEMINI_API_KEY is not set.',
      code: 'provider_unavailable',
    });
  });

  test('every chat route needs a token', async () => {
    for (const [method, pathname] of [
      ['GET', '/api/chats'],
      ['POST', '/api/chats'],
      ['GET', '/api/providers'],
      ['POST', '/api/chats/x/turns'],
    ] as const) {
      expect((await call(method, pathname, 'wrong-token')).status).toBe(401);
    }
  });
});
