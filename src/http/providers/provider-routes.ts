/**
 * `GET /api/providers`: which model providers this server is configured for, so a client can offer
 * only usable ones. Reports availability and, when unavailable, the reason (the missing variable);
 * never keys or base URLs.
 */
import { Elysia } from 'elysia';
import type { AppDependencies } from '../app-dependencies.ts';

export function createProviderRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-provider-routes', seed: deps }).use(deps.authentication).get(
    '/api/providers',
    () => ({
      providers: deps.providers.list().map(({ id, available, reason }) => ({
        id,
        available,
        ...(reason === undefined ? {} : { reason }),
      })),
    }),
    {
      detail: {
        summary: 'The model providers configured on this server',
        tags: ['chats'],
        operationId: 'listProviders',
      },
    },
  );
}
