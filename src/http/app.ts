/**
 * The HTTP app factory. `createApp(deps)` mounts every route module and the error mapping; it opens no
 * port (`startServer` does), so tests call `app.handle(new Request(…))` in process.
 *
 * A route module is a function `(deps: AppDependencies) => Elysia plugin`; it `.use(deps.authentication)`
 * to get `user`, declares TypeBox schemas, and calls one service. To add one (e.g. chats), write
 * `src/http/<feature>/<feature>-routes.ts` and append its factory to `ROUTE_MODULES`.
 */
import { Elysia } from 'elysia';
import packageJson from '../../package.json' with { type: 'json' };
import type { AppDependencies } from './app-dependencies.ts';
import { createChatRoutes } from './chat/chat-routes.ts';
import { createHealthRoutes } from './health/health-routes.ts';
import { HttpError, mapErrorToResponse } from './http-errors.ts';
import { createImageRoutes } from './images/image-routes.ts';
import { createMcpOriginGuard } from './mcp/mcp-origin-guard.ts';
import { createMcpRoutes } from './mcp/mcp-routes.ts';
import { createMcpServerRoutes } from './mcp-servers/mcp-server-routes.ts';
import { buildOpenApiDocument, type RouteForDocument } from './openapi.ts';
import { createPreferenceRoutes } from './preferences/preference-routes.ts';
import { createProviderRoutes } from './providers/provider-routes.ts';
import { normalizeRequestUrl } from './request-url.ts';
import { createToolSettingsRoutes } from './settings/tool-settings-routes.ts';
import { createWebAppRoutes } from './web/web-app-routes.ts';
import { createWorkspaceFileRoutes, uploadBodyLimit } from './workspace-files/workspace-file-routes.ts';
import { createWorkspaceRoutes } from './workspaces/workspace-routes.ts';

/** Every route module, mounted in this order. */
export const ROUTE_MODULES = [
  createToolSettingsRoutes,
  createImageRoutes,
  createMcpRoutes,
  createProviderRoutes,
  createChatRoutes,
  createWorkspaceRoutes,
  createWorkspaceFileRoutes,
  createPreferenceRoutes,
  createMcpServerRoutes,
] as const;

/**
 * Route modules that need no token (readiness, the web app's pages and assets), mounted before the
 * authentication plugin: its `resolve` applies to every route registered after it.
 */
export const PUBLIC_ROUTE_MODULES = [createHealthRoutes, createWebAppRoutes] as const;

export function createApp(deps: AppDependencies) {
  const maxBodyBytes = deps.config.maxRequestBodyBytes;
  const app = new Elysia({ normalize: false })
    .onError(({ code, error }) => mapErrorToResponse(error, code, deps.log, deps.databaseOutage))
    .onRequest(({ request }) => {
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length <= maxBodyBytes) return;
      // An upload has its own, larger cap, which its route enforces on the bytes as they arrive.
      const limit = uploadBodyLimit(request, deps.config) ?? maxBodyBytes;
      if (length > limit) {
        throw new HttpError(413, 'payload_too_large', `The request body exceeds ${limit} bytes.`);
      }
    });
  for (const createRoutes of PUBLIC_ROUTE_MODULES) app.use(createRoutes(deps));
  // Before authentication: a rebinding page's request is refused without looking at its token.
  app.use(createMcpOriginGuard(deps.allowedHosts));
  app.use(deps.authentication);
  for (const createRoutes of ROUTE_MODULES) app.use(createRoutes(deps));
  let document: unknown;
  const routed = app.get(
    '/api/openapi.json',
    () => {
      document ??= buildOpenApiDocument(app.routes as unknown as RouteForDocument[], packageJson.version);
      return document;
    },
    { detail: { summary: 'This OpenAPI document', tags: ['meta'], operationId: 'getOpenApiDocument' } },
  );
  const routeRequest = routed.handle;
  // Normalized before routing: the router misreads the path of a URL with a very short host.
  routed.handle = (request) => routeRequest(normalizeRequestUrl(request));
  return routed;
}

export type App = ReturnType<typeof createApp>;
