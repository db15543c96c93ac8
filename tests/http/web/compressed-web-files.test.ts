import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Elysia } from 'elysia';
import { negotiateEncoding } from '../../../src/http/web/negotiate-encoding.ts';
import { createStaticWebRoutes } from '../../../src/http/web/static-web-routes.ts';
import { loadWebApp, sha256Hex } from '../../../src/web/load-web-app.ts';
import { precompressWebFiles } from '../../../src/web/precompress-web-files.ts';
import { writeBuildManifest } from '../../../src/web/web-build.ts';

const SCRIPT = `${'export const greeting = "hello, compressed world";\n'.repeat(200)}`;
let directory: string;
let app: { handle(request: Request): Promise<Response> };

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mango-compressed-'));
  await writeFile(
    path.join(directory, 'index.html'),
    `<!doctype html><title>shell</title>${' '.repeat(2000)}`,
  );
  await writeFile(path.join(directory, 'app.js'), SCRIPT);
  // Too short to gain from compression: no copies.
  await writeFile(path.join(directory, 'tiny.css'), 'a{}');
  await writeFile(path.join(directory, 'app.js.map'), `{"version":3${' '.repeat(4000)}}`);
  await precompressWebFiles(directory, 'build-manifest.json');
  await writeBuildManifest(directory);
  app = new Elysia().use(createStaticWebRoutes({ webApp: await loadWebApp(directory) }));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const get = (pathname: string, headers: Record<string, string> = {}) =>
  app.handle(new Request(`http://localhost${pathname}`, { headers }));

describe('precompressed web files', () => {
  test('the build writes a brotli and a gzip copy of each text file that shrinks, not of source maps', async () => {
    expect((await readdir(directory)).sort()).toEqual([
      'app.js',
      'app.js.br',
      'app.js.gz',
      'app.js.map',
      'build-manifest.json',
      'index.html',
      'index.html.br',
      'index.html.gz',
      'tiny.css',
    ]);
  });

  test('brotli when accepted, with Vary and the copy’s own ETag; the bytes decompress to the file', async () => {
    const response = await get('/app.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const body = new Uint8Array(await response.arrayBuffer());
    expect(response.headers.get('etag')).toBe(`"${sha256Hex(body)}"`);
    expect(response.headers.get('content-length')).toBe(String(body.byteLength));
    expect(body.byteLength).toBeLessThan(SCRIPT.length / 10);
    expect(brotliDecompressSync(body).toString()).toBe(SCRIPT);
  });

  test('gzip when brotli is not accepted; identity when nothing is, each with a different ETag', async () => {
    const gzip = await get('/app.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('vary')).toBe('Accept-Encoding');
    expect(gunzipSync(new Uint8Array(await gzip.arrayBuffer())).toString()).toBe(SCRIPT);
    const plain = await get('/app.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toBe('Accept-Encoding');
    expect(plain.headers.get('etag')).toBe(`"${sha256Hex(new TextEncoder().encode(SCRIPT))}"`);
    expect(await plain.text()).toBe(SCRIPT);
    const tags = new Set([gzip, plain].map((response) => response.headers.get('etag')));
    tags.add((await get('/app.js', { 'accept-encoding': 'br' })).headers.get('etag'));
    expect(tags.size).toBe(3);
  });

  test('a revalidation answers 304 only for the ETag of the encoding it would send', async () => {
    const brotli = await get('/app.js', { 'accept-encoding': 'br' });
    const etag = brotli.headers.get('etag')!;
    const again = await get('/app.js', { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('content-encoding')).toBe('br');
    const otherEncoding = await get('/app.js', { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(otherEncoding.status).toBe(200);
    expect(otherEncoding.headers.get('content-encoding')).toBe('gzip');
  });

  test('the app’s pages get the compressed shell too, with the CSP; a 404 page keeps its status', async () => {
    const page = await get('/chats/abc', { 'accept-encoding': 'br' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const missing = await get('/no-such-page', { 'accept-encoding': 'gzip' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-encoding')).toBe('gzip');
  });

  test('a file without copies has no Vary; the copies are not served under their own names', async () => {
    const tiny = await get('/tiny.css', { 'accept-encoding': 'br, gzip' });
    expect(tiny.headers.get('content-encoding')).toBeNull();
    expect(tiny.headers.get('vary')).toBeNull();
    expect(await tiny.text()).toBe('a{}');
    for (const name of ['/app.js.br', '/app.js.gz']) {
      const response = await get(name);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'Not found', code: 'not_found' });
    }
  });
});

describe('negotiateEncoding', () => {
  const offered = ['br', 'gzip'] as const;
  test.each([
    [null, undefined],
    ['', undefined],
    ['identity', undefined],
    ['gzip', 'gzip'],
    ['GZIP;q=0.5, br', 'br'],
    ['br;q=0, gzip', 'gzip'],
    ['br;q=0, gzip;q=0', undefined],
    ['*', 'br'],
    ['*;q=0', undefined],
    ['br;q=0, *', 'gzip'],
    ['deflate, zstd', undefined],
  ])('Accept-Encoding %p → %p', (header, expected) => {
    const chosen: string | undefined = negotiateEncoding(header, offered);
    expect(chosen).toBe(expected);
  });

  test('nothing offered is identity whatever the header accepts', () => {
    expect(negotiateEncoding('br, gzip', [])).toBeUndefined();
  });
});
