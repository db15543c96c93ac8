/**
 * Serves the built web app (`dist/web/`) from `/`: files by extension with their content type, and
 * `index.html` for the app's own client-side routes (`/tools`, `/chats`, `/chats/:id`), so reloads
 * and links work; any other path is the API's JSON 404. It never answers for `/api` or `/mcp`: an unknown path there gets the API's JSON
 * 404, so a typo in an API call is not hidden behind an HTML page. Paths cannot leave the directory.
 *
 * Every HTML answer carries a Content-Security-Policy that only allows this origin (plus data:/blob:
 * images), which enforces "no network requests to anything but the server" in the browser itself.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Elysia } from 'elysia';

export interface StaticWebRoutesOptions {
  /** The build output directory (`dist/web` by default at the call site). */
  directory: string;
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
};

/** The client-side routes of the app (web/main.ts), answered with `index.html`. */
const APP_ROUTE_PATTERN = /^\/(?:tools|chats(?:\/[^/]+)?)?\/?$/;

/** True for `/`, `/tools`, `/chats`, `/chats/ID` (trailing slash allowed). */
export function isAppRoute(pathname: string): boolean {
  return APP_ROUTE_PATTERN.test(pathname);
}

/** True for `/api`, `/api/...`, `/mcp`, `/mcp/...` (not `/apiary`). */
export function isReservedPath(pathname: string): boolean {
  return RESERVED_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

function notFound(): Response {
  return Response.json({ error: 'Not found', code: 'not_found' }, { status: 404 });
}

async function fileResponse(filePath: string, method: string): Promise<Response | undefined> {
  let size: number;
  try {
    const info = await stat(filePath);
    if (!info.isFile()) return undefined;
    size = info.size;
  } catch {
    return undefined;
  }
  const extension = path.extname(filePath).toLowerCase();
  const headers: Record<string, string> = {
    'content-type': CONTENT_TYPES[extension] ?? 'application/octet-stream',
    'content-length': String(size),
    // Unhashed file names: always revalidate so a rebuilt app is picked up on reload.
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  };
  if (extension === '.html') {
    headers['content-security-policy'] = WEB_CONTENT_SECURITY_POLICY;
    headers['x-frame-options'] = 'DENY';
  }
  return new Response(method === 'HEAD' ? null : Bun.file(filePath), { headers });
}

/** Resolves a URL path to a file inside `root`, or undefined when it would escape it. */
export function resolveStaticPath(root: string, pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const resolved = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  return resolved === root || resolved.startsWith(`${root}${path.sep}`) ? resolved : undefined;
}

/**
 * The static route module. Mount it last-resort style (`app.use(createStaticWebRoutes(...))`); the
 * router prefers every explicit route over its wildcard, whatever the mounting order.
 */
export function createStaticWebRoutes(options: StaticWebRoutesOptions) {
  const root = path.resolve(options.directory);
  const serve = async ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    if (isReservedPath(url.pathname)) return notFound();
    const filePath = resolveStaticPath(root, url.pathname);
    if (!filePath) return notFound();
    const direct = await fileResponse(filePath, request.method);
    if (direct) return direct;
    if (!isAppRoute(url.pathname)) return notFound();
    const shell = await fileResponse(path.join(root, 'index.html'), request.method);
    if (shell) return shell;
    return new Response('The web app is not built: run `npm run build`.\n', {
      status: 503,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
  };
  return new Elysia({ name: 'static-web-routes' })
    .get('/', serve)
    .get('/*', serve)
    .head('/', serve)
    .head('/*', serve);
}
