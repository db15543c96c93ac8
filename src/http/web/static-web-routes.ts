/**
 * Serves the web app from `/` out of memory: the bytes `loadWebApp` read and verified at start, never
 * the disk, so a file written into the build directory while the server runs is not served. Files by
 * name with their content type (and a strong ETag, their SHA-256), and `index.html` for the app's own
 * client-side routes (`/tools`, `/chats`, `/chats/:id`), so reloads and links work. Any other path that
 * looks like a page (no file extension) gets `index.html` with status 404, so a mistyped link shows the
 * app's not-found view; a missing file (`/missing.js`) is the API's JSON 404, so a script or style that
 * is not there is never answered with HTML. It never answers for `/api` or `/mcp`: an unknown path there gets the API's JSON
 * 404, so a typo in an API call is not hidden behind an HTML page. Only names the build manifest lists
 * exist, so no request path can reach another file.
 *
 * A file the build compressed (`app.js.br`, `app.js.gz` beside `app.js`) is sent compressed to a browser
 * whose `Accept-Encoding` takes it (brotli first), with `Vary: Accept-Encoding` and an ETag of its own
 * (the copy's SHA-256), so a cache never hands one encoding's bytes to a request for another. The copies
 * are never served under their own names.
 *
 * Every HTML answer carries a Content-Security-Policy that only allows this origin (plus data:/blob:
 * images), which enforces "no network requests to anything but the server" in the browser itself.
 */
import path from 'node:path';
import { Elysia } from 'elysia';
import type { WebApp, WebAppFile } from '../../web/load-web-app.ts';
import {
  ENCODING_SUFFIX,
  isPrecompressedCopyName,
  PRECOMPRESSED_ENCODINGS,
} from '../../web/precompress-web-files.ts';
import { negotiateEncoding } from './negotiate-encoding.ts';

export interface StaticWebRoutesOptions {
  /** The verified build, or undefined when none is built (pages then answer 503 with the fix). */
  webApp: WebApp | undefined;
}
/** Path prefixes that belong to the API and MCP surfaces; the static route never serves them. */
const RESERVED_PREFIXES = ['/api', '/mcp'];

export const WEB_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** The client-side routes of the app (web/main.ts), answered with `index.html`. */
const APP_ROUTE_PATTERN = /^\/(?:tools|chats(?:\/[^/]+)?)?\/?$/;

/** True for `/`, `/tools`, `/chats`, `/chats/ID` (trailing slash allowed). */
export function isAppRoute(pathname: string): boolean {
  return APP_ROUTE_PATTERN.test(pathname);
}

/**
 * True for a path that names a page, not a file: no dot and no escape anywhere (`/settings`, `/a/b`;
 * not `/logo.svg/` or `/%2e%2e/x`).
 */
export function isPageLikePath(pathname: string): boolean {
  return !pathname.includes('.') && !pathname.includes('%');
}

/** True for `/api`, `/api/...`, `/mcp`, `/mcp/...` (not `/apiary`). */
export function isReservedPath(pathname: string): boolean {
  return RESERVED_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

function notFound(): Response {
  return Response.json({ error: 'Not found', code: 'not_found' }, { status: 404 });
}

function fileResponse(
  name: string,
  files: ReadonlyMap<string, WebAppFile>,
  request: Request,
  status = 200,
): Response {
  const extension = path.extname(name).toLowerCase();
  const identity = files.get(name)!;
  const offered = PRECOMPRESSED_ENCODINGS.filter((encoding) => files.has(name + ENCODING_SUFFIX[encoding]));
  const encoding = negotiateEncoding(request.headers.get('accept-encoding'), offered);
  const file = encoding ? files.get(name + ENCODING_SUFFIX[encoding])! : identity;
  const etag = `"${file.sha256}"`;
  const headers: Record<string, string> = {
    'content-type': CONTENT_TYPES[extension] ?? 'application/octet-stream',
    // Unhashed file names: always revalidate (cheap, by ETag) so a rebuilt app is picked up on reload.
    'cache-control': 'no-cache',
    etag,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (offered.length > 0) headers.vary = 'Accept-Encoding';
  if (encoding) headers['content-encoding'] = encoding;
  if (extension === '.html') {
    headers['content-security-policy'] = WEB_CONTENT_SECURITY_POLICY;
    headers['x-frame-options'] = 'DENY';
  }
  if (status === 200 && ifNoneMatchHas(request.headers.get('if-none-match'), etag))
    return new Response(null, { status: 304, headers });
  headers['content-length'] = String(file.bytes.byteLength);
  return new Response(request.method === 'HEAD' ? null : file.bytes, { status, headers });
}

/** True when `If-None-Match` (one tag, a list, or `*`) names the tag, weak or strong. */
function ifNoneMatchHas(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}

/** The build file a URL path names (`/app.js` → `app.js`), or undefined for anything else. */
export function webFileNameOf(pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  const name = decoded.startsWith('/') ? decoded.slice(1) : decoded;
  return name.length > 0 && !name.includes('/') ? name : undefined;
}

/**
 * The static route module. Mount it last-resort style (`app.use(createStaticWebRoutes(...))`); the
 * router prefers every explicit route over its wildcard, whatever the mounting order.
 */
export function createStaticWebRoutes(options: StaticWebRoutesOptions) {
  const files = options.webApp?.files ?? new Map<string, WebAppFile>();
  const serve = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    if (isReservedPath(url.pathname)) return notFound();
    const name = webFileNameOf(url.pathname);
    const file = name === undefined || isPrecompressedCopyName(name) ? undefined : files.get(name);
    if (name !== undefined && file) return fileResponse(name, files, request);
    const known = isAppRoute(url.pathname);
    if (!known && !isPageLikePath(url.pathname)) return notFound();
    if (files.has('index.html')) return fileResponse('index.html', files, request, known ? 200 : 404);
    if (!known) return notFound();
    return new Response('The web app is not built: run `npm run build`.\n', {
      status: 503,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  };
  // The web app's pages are not part of the API: left out of the OpenAPI document.
  const page = { detail: { hide: true } };
  return new Elysia({ name: 'static-web-routes' })
    .get('/', serve, page)
    .get('/*', serve, page)
    .head('/', serve, page)
    .head('/*', serve, page);
}
