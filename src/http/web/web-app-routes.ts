/**
 * The route module that serves the web app (`GET /`, `/tools`, `/chats/…`, `/app.js`…) from the bytes
 * the server loaded and verified at start (`deps.webApp`; none loaded answers the pages with a 503).
 * Pages need no token — the app signs in with one — while everything under `/api` and `/mcp` stays
 * behind authentication.
 */
import type { AppDependencies } from '../app-dependencies.ts';
import { createStaticWebRoutes } from './static-web-routes.ts';

export function createWebAppRoutes(deps: AppDependencies) {
  return createStaticWebRoutes({ webApp: deps.webApp });
}
