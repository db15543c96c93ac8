/**
 * Every 401 carries `WWW-Authenticate: Bearer` (RFC 6750 §3) on `/api` and `/mcp`, with
 * `error="invalid_token"` exactly when credentials were sent.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

describe('401 challenges', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await createTestApp('sqlite');
  });
  afterAll(() => api.dispose());

  async function challenge(path: string, method: string, authorization?: string) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization !== undefined) headers.authorization = authorization;
    const response = await api.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers,
        ...(method === 'POST' ? { body: '{}' } : {}),
      }),
    );
    return {
      status: response.status,
      header: response.headers.get('www-authenticate'),
      body: (await response.json()) as { code: string },
    };
  }

  for (const [path, method] of [
    ['/api/settings/tools', 'GET'],
    ['/api/chats', 'POST'],
    ['/mcp', 'POST'],
    ['/mcp', 'GET'],
  ] as const) {
    test(`${method} ${path} without a token: Bearer challenge, no error code`, async () => {
      expect(await challenge(path, method)).toEqual({
        status: 401,
        header: 'Bearer realm="mango"',
        body: expect.objectContaining({ code: 'unauthorized' }),
      });
    });

    test(`${method} ${path} with a bad token: error="invalid_token"`, async () => {
      expect(await challenge(path, method, 'Bearer not-a-real-token')).toEqual({
        status: 401,
        header: 'Bearer realm="mango", error="invalid_token"',
        body: expect.objectContaining({ code: 'unauthorized' }),
      });
    });
  }

  test('a non-bearer Authorization header counts as credentials sent', async () => {
    const result = await challenge('/api/settings/tools', 'GET', 'Basic YWxpY2U6c2VjcmV0');
    expect(result.header).toBe('Bearer realm="mango", error="invalid_token"');
  });

  test('a valid token is not challenged', async () => {
    const { token } = await api.deps.users.create('carol');
    const response = await api.app.handle(
      new Request('http://localhost/api/settings/tools', { headers: { authorization: `Bearer ${token}` } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });
});
