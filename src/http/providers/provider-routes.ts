/**
 * `GET /api/providers`: which model providers this server is configured for, so a client can offer
 * only usable ones. Reports availability and, when unavailable, the reason (the missing variable);
 * never keys or base URLs.
 *
 * `GET /api/providers/:id/models`: the models that provider lists (its `/v1/models` or equivalent,
 * cached per provider, see `model-catalog.ts`). An id that names no provider is a 404; a provider that
 * is not configured a 503 `provider_unavailable`; a provider that fails to answer a 502
 * `model_list_failed` with its one-line reason. A model not listed can still be typed by hand.
 */
import { Elysia, t } from 'elysia';
import { isProviderId } from '../../providers/provider-registry.ts';
import type { AppDependencies } from '../app-dependencies.ts';
import { providerListSchema } from '../chat/chat-schemas.ts';
import { HttpError } from '../http-errors.ts';
import { errorBodySchema } from '../settings/tool-settings-schemas.ts';

const providerModelsSchema = t.Object({
  provider: t.String(),
  models: t.Array(t.String(), { description: 'Model ids, sorted.' }),
  fetchedAt: t.String({ description: 'ISO 8601: when the provider answered (the list is cached).' }),
});

export function createProviderRoutes(deps: AppDependencies) {
  return new Elysia({ name: 'mango-provider-routes', seed: deps })
    .use(deps.authentication)
    .get(
      '/api/providers',
      () => ({
        providers: deps.providers.list().map(({ id, available, reason }) => ({
          id,
          available,
          ...(reason === undefined ? {} : { reason }),
        })),
      }),
      {
        response: { 200: providerListSchema, 401: errorBodySchema },
        detail: {
          summary: 'The model providers configured on this server',
          tags: ['chats'],
          operationId: 'listProviders',
        },
      },
    )
    .get(
      '/api/providers/:id/models',
      async ({ params }) => {
        if (!isProviderId(params.id)) {
          throw new HttpError(
            404,
            'not_found',
            `No provider "${params.id}"; expected one of: ${deps.providers
              .list()
              .map((provider) => provider.id)
              .join(', ')}.`,
          );
        }
        const entry = await deps.modelCatalog.list(params.id);
        return {
          provider: params.id,
          models: entry.models,
          fetchedAt: new Date(entry.fetchedAt).toISOString(),
        };
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) }),
        response: {
          200: providerModelsSchema,
          401: errorBodySchema,
          404: errorBodySchema,
          502: errorBodySchema,
          503: errorBodySchema,
        },
        detail: {
          summary: 'The models a provider lists (cached)',
          tags: ['chats'],
          operationId: 'listProviderModels',
        },
      },
    );
}
