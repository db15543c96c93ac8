/**
 * The models each provider offers, cached per provider for `ttlMs` (default 10 minutes), so opening
 * the new-chat form does not call the provider every time. Concurrent requests for one provider share
 * one call. A failed listing is not cached: the next request asks again. The clock is injected.
 */

import type { ProviderId } from '../contracts/provider-id.ts';
import type { ProviderRegistry } from './provider-registry.ts';

export const DEFAULT_MODEL_CATALOG_TTL_MS = 10 * 60 * 1000;

export interface ModelCatalogEntry {
  models: string[];
  /** When the provider answered, epoch milliseconds. */
  fetchedAt: number;
}

export interface ModelCatalog {
  /** @throws ModelListError (from the registry) */
  list(id: ProviderId): Promise<ModelCatalogEntry>;
}

export interface ModelCatalogOptions {
  providers: Pick<ProviderRegistry, 'listModels'>;
  now: () => number;
  ttlMs?: number;
}

export function createModelCatalog(options: ModelCatalogOptions): ModelCatalog {
  const ttl = options.ttlMs ?? DEFAULT_MODEL_CATALOG_TTL_MS;
  const cached = new Map<ProviderId, ModelCatalogEntry>();
  const pending = new Map<ProviderId, Promise<ModelCatalogEntry>>();
  return {
    list(id) {
      const entry = cached.get(id);
      if (entry && options.now() - entry.fetchedAt < ttl) return Promise.resolve(entry);
      const running = pending.get(id);
      if (running) return running;
      const request = options.providers
        .listModels(id)
        .then((models) => {
          const fresh = { models, fetchedAt: options.now() };
          cached.set(id, fresh);
          return fresh;
        })
        .finally(() => pending.delete(id));
      pending.set(id, request);
      return request;
    },
  };
}
