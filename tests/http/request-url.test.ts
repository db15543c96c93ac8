/**
 * Short `Host` headers over real HTTP: `api`, `a:1` and a two-letter host route like any other (the
 * router reads the path at a fixed offset in the URL; the app normalizes first).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { normalizeRequestUrl } from '../../src/http/request-url.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe('normalizeRequestUrl', () => {
  test('a URL the router reads right is passed through as the same object', () => {
    const request = new Request('http://localhost:3000/api/x?y=1');
    expect(normalizeRequestUrl(request)).toBe(request);
  });

  test('a short host keeps method, headers, path, query and body', async () => {
    const request = new Request('http://ab/api/x?y=1', {
      method: 'PUT',
      headers: { host: 'ab', 'x-test': 'kept' },
      body: 'the body',
    });
    const normalized = normalizeRequestUrl(request);
    expect(normalized.url).toBe('http://localhost/api/x?y=1');
    expect(normalized.method).toBe('PUT');
    expect(normalized.headers.get('host')).toBe('ab');
    expect(normalized.headers.get('x-test')).toBe('kept');
    expect(await normalized.text()).toBe('the body');
  });

  test('aborting the original aborts the normalized request', () => {
    const controller = new AbortController();
    const normalized = normalizeRequestUrl(new Request('http://a:1/x', { signal: controller.signal }));
    controller.abort();
    expect(normalized.signal.aborted).toBe(true);
  });
});

describe('the real server under short Host headers', () => {
  let handle: TestDatabase;
  let server: RunningServer;
  let token = '';
  beforeAll(async () => {
    handle = await createTestDatabase('sqlite', { migrate: false });
    server = await startServer(handle.config, { print: () => {} });
    token = (await server.deps.users.create('alice')).token;
  }, 30_000);
  afterAll(async () => {
    await server.stop();
    await handle.dispose();
  });

  async function listWithHost(host: string) {
    const response = await fetch(`${server.url}/api/settings/tools`, {
      headers: { host, authorization: `Bearer ${token}` },
    });
    const body = (await response.json()) as { tools?: { name: string }[] };
    return { status: response.status, names: body.tools?.map((tool) => tool.name) };
  }

  test('api, a:1 and ab answer exactly as localhost does', async () => {
    const expected = await listWithHost('localhost');
    expect(expected.status).toBe(200);
    expect(expected.names?.length).toBeGreaterThan(3);
    for (const host of ['api', 'a:1', 'ab']) expect(await listWithHost(host)).toEqual(expected);
  });

  test('a body is read under a short host (PUT settings)', async () => {
    const response = await fetch(`${server.url}/api/settings/tools/get_current_datetime`, {
      method: 'PUT',
      headers: { host: 'ab', authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { enabled: boolean }).enabled).toBe(false);
  });

  test('an unknown path under a short host is the same JSON 404 as under localhost', async () => {
    const answers = [];
    for (const host of ['localhost', 'api']) {
      const response = await fetch(`${server.url}/api/nope`, {
        headers: { host, authorization: `Bearer ${token}` },
      });
      answers.push({ status: response.status, body: await response.json() });
    }
    expect(answers[0]).toEqual({ status: 404, body: { error: 'Not found', code: 'not_found' } });
    expect(answers[1]).toEqual(answers[0]);
  });
});
