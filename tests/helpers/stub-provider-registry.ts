/**
 * A `ProviderRegistry` for route tests: the given providers are available (optionally with a base URL,
 * which the API must never reveal), every other id is unavailable with the reason
 * `<ID>_API_KEY is not set.`; `listModels` answers `options.models` for an available one.
 */

import { PROVIDER_IDS, type ProviderId } from '../../src/contracts/provider-id.ts';
import { ModelListError } from '../../src/providers/model-lister.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import type { ProviderRegistry, ProviderStatus } from '../../src/providers/provider-registry.ts';

export function createStubProviderRegistry(
  providers: Partial<Record<ProviderId, ModelProvider>>,
  options: { baseURL?: string; models?: Partial<Record<ProviderId, string[]>> } = {},
): ProviderRegistry {
  const status = (id: ProviderId): ProviderStatus =>
    providers[id]
      ? { id, available: true, ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }) }
      : { id, available: false, reason: `${id.toUpperCase()}_API_KEY is not set.` };
  return {
    list: () => PROVIDER_IDS.map(status),
    status,
    get: (id) => providers[id],
    listModels: async (id) => {
      if (!providers[id]) throw new ModelListError('provider_unavailable', status(id).reason!);
      return options.models?.[id] ?? [];
    },
  };
}
