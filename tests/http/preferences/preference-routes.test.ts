/**
 * `/api/preferences/chat-model` in process over both backends: nothing saved reads as null, a PUT is
 * read back (also after a restart), each user sees only their own, and bad bodies are specific 400s.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, FIXED_NOW, type TestApp } from '../../helpers/test-app.ts';
import { BACKENDS } from '../../helpers/test-database.ts';

describe.each(BACKENDS)('/api/preferences/chat-model on %s', (backend) => {
  let api: TestApp;
  let alice: string;
  let bob: string;
  const path = '/api/preferences/chat-model';
  const at = new Date(FIXED_NOW).toISOString();

  beforeAll(async () => {
    api = await createTestApp(backend);
    alice = (await api.deps.users.create('alice')).token;
    bob = (await api.deps.users.create('bob')).token;
  });
  afterAll(() => api.dispose());

  test('nothing saved yet reads as null', async () => {
    expect(await api.request('GET', path, { token: alice })).toMatchObject({
      status: 200,
      json: { chatModel: null },
    });
  });

  test('a PUT is read back, replaced by the next, kept over a restart, and only for its user', async () => {
    const first = await api.request('PUT', path, {
      token: alice,
      body: { provider: 'anthropic', model: ' claude-sonnet-4-5 ' },
    });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      chatModel: { provider: 'anthropic', model: 'claude-sonnet-4-5', updatedAt: at },
    });
    await api.request('PUT', path, { token: alice, body: { provider: 'openai', model: 'gpt-5.1' } });
    await api.restart();
    expect((await api.request('GET', path, { token: alice })).json).toEqual({
      chatModel: { provider: 'openai', model: 'gpt-5.1', updatedAt: at },
    });
    expect((await api.request('GET', path, { token: bob })).json).toEqual({ chatModel: null });
  });

  test.each([
    ['an unknown provider', { provider: 'mistral', model: 'm' }],
    ['an empty model', { provider: 'openai', model: '' }],
    ['a blank model', { provider: 'openai', model: '   ' }],
    ['a model over 200 characters', { provider: 'openai', model: 'm'.repeat(201) }],
    ['an extra field', { provider: 'openai', model: 'm', systemPrompt: 'x' }],
    ['no model', { provider: 'openai' }],
  ])('%s is a 400 invalid_request naming the field', async (_name, body) => {
    const answer = await api.request('PUT', path, { token: bob, body });
    expect(answer.status).toBe(400);
    expect((answer.json as { code: string }).code).toBe('invalid_request');
    expect((answer.json as { error: string }).error).toMatch(/provider|model|systemPrompt|property/);
    expect((await api.request('GET', path, { token: bob })).json).toEqual({ chatModel: null });
  });

  test('no token is a 401 for both methods', async () => {
    expect((await api.request('GET', path)).status).toBe(401);
    expect((await api.request('PUT', path, { body: { provider: 'openai', model: 'm' } })).status).toBe(401);
  });
});
