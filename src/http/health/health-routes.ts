/**
 * `GET /api/health`: readiness for load balancers, without a token. 200 `{status: 'ok'}` when the
 * database answers a query within its deadline; otherwise 503 `{status: 'unavailable', reason}` with
 * `Retry-After`, and the outage is reported (one log line when it begins).
 */
import { Elysia, t } from 'elysia';
import type { AppDependencies } from '../app-dependencies.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../database-outage.ts';

export function createHealthRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-health-routes' }).get(
    '/api/health',
    async ({ set }) => {
      const health = await deps.databaseOutage.check();
      if (health.ok) return { status: 'ok' as const, database: 'reachable' as const };
      set.status = 503;
      set.headers['retry-after'] = String(DATABASE_RETRY_AFTER_SECONDS);
      return { status: 'unavailable' as const, database: 'unreachable' as const, reason: health.reason };
    },
    {
      response: {
        200: t.Object({ status: t.Literal('ok'), database: t.Literal('reachable') }),
        503: t.Object({
          status: t.Literal('unavailable'),
          database: t.Literal('unreachable'),
          reason: t.Optional(t.String()),
        }),
      },
      detail: {
        summary: 'Readiness: 200 when the database answers, 503 otherwise (no token needed)',
        tags: ['meta'],
        operationId: 'getHealth',
      },
    },
  );
}
