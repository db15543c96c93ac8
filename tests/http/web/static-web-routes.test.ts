import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Elysia } from 'elysia';
import {
  createStaticWebRoutes,
  isAppRoute,
  isReservedPath,
  WEB_CONTENT_SECURITY_POLICY,
  webFileNameOf,
} from '../../../src/http/web/static-web-routes.ts';
import { loadWebApp, sha256Hex } from '../../../src/web/load-web-app.ts';
import { writeBuildManifest } from '../../../src/web/web-build.ts';

let directory: string;
let app: { handle(request: Request): Promise<Response> };

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mango-static-'));
  await writeFile(path.join(directory, 'index.html'), '<!doctype html><title>shell</title>');
  await writeFile(path.join(directory, 'app.js'), 'console.log(1);');
  await writeFile(path.join(directory, 'app.css'), 'body{}');
  await writeFile(path.join(directory, 'logo.svg'), '<svg/>');
  await writeFile(path.join(path.dirname(directory), 'outside-secret.txt'), 'secret');
  await writeBuildManifest(directory);
  // Written after the manifest: on disk, but never part of the build.
  await writeFile(path.join(directory, 'unlisted.js'), 'alert(1);');
  const webApp = await loadWebApp(directory);
  // Static routes mounted first on purpose: explicit API routes must still win.
  app = new Elysia()
    .use(createStaticWebRoutes({ webApp }))
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
    ['/logo.svg', 200, 'image/svg+xml', '<svg/>'],
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
    '/unlisted.js',
    '/build-manifest.json',
    '/logo.svg/',
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

  test.each(['/settings', '/chats/a/b', '/tools/x/', '/nowhere/at/all'])(
    'GET %s → the app shell with status 404 (the app shows its not-found view)',
    async (pathname) => {
      const response = await get(pathname);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(WEB_CONTENT_SECURITY_POLICY);
      expect(await response.text()).toBe('<!doctype html><title>shell</title>');
    },
  );

  test('explicit API and MCP routes win over the wildcard', async () => {
    expect(await (await get('/api/ping')).json()).toEqual({ pong: true });
    expect(await (await get('/mcp')).text()).toBe('mcp');
  });

  test('a file carries its SHA-256 as a strong ETag; If-None-Match with it answers 304 without a body', async () => {
    const etag = `"${sha256Hex(new TextEncoder().encode('console.log(1);'))}"`;
    const response = await get('/app.js');
    expect(response.headers.get('etag')).toBe(etag);
    const again = await app.handle(
      new Request('http://localhost/app.js', { headers: { 'if-none-match': etag } }),
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const stale = await app.handle(
      new Request('http://localhost/app.js', { headers: { 'if-none-match': '"x"' } }),
    );
    expect(stale.status).toBe(200);
    expect(await stale.text()).toBe('console.log(1);');
  });

  test('HEAD answers headers without a body', async () => {
    const response = await get('/app.js', 'HEAD');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await response.text()).toBe('');
  });

  test('an unbuilt app answers 503 with the command to build it', async () => {
    const bare = new Elysia().use(createStaticWebRoutes({ webApp: undefined }));
    const response = await bare.handle(new Request('http://localhost/tools'));
    expect(response.status).toBe(503);
    expect(await response.text()).toBe('The web app is not built: run `npm run build`.\n');
    expect((await bare.handle(new Request('http://localhost/app.js'))).status).toBe(404);
    const unknown = await bare.handle(new Request('http://localhost/nowhere'));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Not found', code: 'not_found' });
  });
});

describe('isAppRoute, isReservedPath and webFileNameOf', () => {
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
    ['/app%2Ejs', 'app.js'],
    ['/', undefined],
    ['/a/../app.js', undefined],
    ['/..%2foutside-secret.txt', undefined],
    ['/%E0%A4%A', undefined],
  ])('webFileNameOf(%s) = %p', (pathname, expected) => {
    expect(webFileNameOf(pathname)).toBe(expected);
  });
});
