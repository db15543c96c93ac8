import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Elysia } from 'elysia';
import {
  createStaticWebRoutes,
  isAppRoute,
  isReservedPath,
  resolveStaticPath,
  WEB_CONTENT_SECURITY_POLICY,
} from '../../../src/http/web/static-web-routes.ts';

let directory: string;
let app: { handle(request: Request): Promise<Response> };

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mango-static-'));
  await writeFile(path.join(directory, 'index.html'), '<!doctype html><title>shell</title>');
  await writeFile(path.join(directory, 'app.js'), 'console.log(1);');
  await writeFile(path.join(directory, 'app.css'), 'body{}');
  await mkdir(path.join(directory, 'assets'));
  await writeFile(path.join(directory, 'assets', 'logo.svg'), '<svg/>');
  await writeFile(path.join(path.dirname(directory), 'outside-secret.txt'), 'secret');
  // Static routes mounted first on purpose: explicit API routes must still win.
  app = new Elysia()
    .use(createStaticWebRoutes({ directory }))
    .get('/api/ping', () => ({ pong: true }))
    .get('/mcp', () => 'mcp');
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
  await rm(path.join(path.dirname(directory), 'outside-secret.txt'), { force: true });
});

const get = (pathname: string, method = 'GET') =>
  app.handle(new Request(`http://localhost${pathname}`, { method }));

describe('static web routes', () => {
  test.each([
    ['/', 200, 'text/html; charset=utf-8', 'shell'],
    ['/index.html', 200, 'text/html; charset=utf-8', 'shell'],
    ['/app.js', 200, 'text/javascript; charset=utf-8', 'console.log(1);'],
    ['/app.css', 200, 'text/css; charset=utf-8', 'body{}'],
    ['/assets/logo.svg', 200, 'image/svg+xml', '<svg/>'],
    ['/tools', 200, 'text/html; charset=utf-8', 'shell'],
    ['/chats/abc-123', 200, 'text/html; charset=utf-8', 'shell'],
  ])('GET %s → %i %s', async (pathname, status, contentType, bodyPart) => {
    const response = await get(pathname);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(await response.text()).toContain(bodyPart);
  });

  test('the HTML shell carries a same-origin-only content security policy', async () => {
    const response = await get('/chats');
    expect(response.headers.get('content-security-policy')).toBe(WEB_CONTENT_SECURITY_POLICY);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test.each([
    '/missing.js',
    '/api/unknown',
    '/api',
    '/mcp/anything',
    '/..%2foutside-secret.txt',
    '/%2e%2e/outside-secret.txt',
  ])('GET %s → JSON 404, never the app shell', async (pathname) => {
    const response = await get(pathname);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found', code: 'not_found' });
  });

  test('explicit API and MCP routes win over the wildcard', async () => {
    expect(await (await get('/api/ping')).json()).toEqual({ pong: true });
    expect(await (await get('/mcp')).text()).toBe('mcp');
  });

  test('HEAD answers headers without a body', async () => {
    const response = await get('/app.js', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  test('an unbuilt app answers 503 with the command to build it', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'mango-static-empty-'));
    try {
      const bare = new Elysia().use(createStaticWebRoutes({ directory: empty }));
      const response = await bare.handle(new Request('http://localhost/tools'));
      expect(response.status).toBe(503);
      expect(await response.text()).toContain('npm run build');
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});

describe('isAppRoute, isReservedPath and resolveStaticPath', () => {
  test.each([
    ['/', true],
    ['/tools', true],
    ['/tools/', true],
    ['/chats', true],
    ['/chats/0b6f', true],
    ['/chats/0b6f/', true],
    ['/chats/a/b', false],
    ['/nowhere', false],
    ['/toolsx', false],
  ])('isAppRoute(%s) = %p', (pathname, expected) => {
    expect(isAppRoute(pathname)).toBe(expected);
  });

  test.each([
    ['/api', true],
    ['/api/settings/tools', true],
    ['/mcp', true],
    ['/mcp/session', true],
    ['/apiary', false],
    ['/tools', false],
  ])('isReservedPath(%s) = %p', (pathname, expected) => {
    expect(isReservedPath(pathname)).toBe(expected);
  });

  test.each([
    ['/app.js', 'app.js'],
    ['/a/../app.js', 'app.js'],
    ['/../../etc/passwd', 'etc/passwd'],
    ['/%2e%2e/%2e%2e/etc/passwd', 'etc/passwd'],
  ])('resolveStaticPath keeps %s inside the root', (pathname, relative) => {
    expect(resolveStaticPath('/srv/web', pathname)).toBe(path.join('/srv/web', relative));
  });

  test('a NUL byte or broken escape resolves to nothing', () => {
    expect(resolveStaticPath('/srv/web', '/app%00.js')).toBeUndefined();
    expect(resolveStaticPath('/srv/web', '/%E0%A4%A')).toBeUndefined();
  });
});
