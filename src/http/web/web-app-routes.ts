/**
 * The route module that serves the web app (`GET /`, `/tools`, `/chats/…`, `/app.js`…) from the
 * build directory: `config.webDirectory`, or `dist/web` of this checkout. Pages need no token — the
 * app signs in with one — while everything under `/api` and `/mcp` stays behind authentication.
 */
import { DEFAULT_WEB_OUTPUT_DIRECTORY } from '../../web/web-build.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { createStaticWebRoutes } from './static-web-routes.ts';

export function createWebAppRoutes(deps: AppDependencies) {
  return createStaticWebRoutes({ directory: deps.config.webDirectory ?? DEFAULT_WEB_OUTPUT_DIRECTORY });
}
