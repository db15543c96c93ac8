/**
 * The conformance kit's adapters: every adapter of `src/providers/provider-adapters.ts`, built against
 * the replay server, with its wire format's body builder. An adapter added there needs its wire format
 * here (the table is keyed by id: without one it does not compile) and its recordings in
 * `__fixtures__/provider-streams/` with an exact-event test; the contract table then runs for it.
 */

import { PROVIDER_IDS, type ProviderId } from '../../../src/contracts/provider-id.ts';
import type { ModelProvider } from '../../../src/providers/model-provider.ts';
import { PROVIDER_ADAPTERS, type ProviderAdapter } from '../../../src/providers/provider-adapters.ts';
import type { ProviderClientOptions } from '../../../src/providers/streaming-provider.ts';
import {
  anthropicWire,
  chatWire,
  geminiGenerateContentWire,
  geminiInteractionsWire,
  responsesWire,
  type WireFormat,
} from './wire-formats.ts';

/** Connection options a case may change (retries, stall limits, the sleep between retries). */
export type ConformanceOptions = Omit<ProviderClientOptions, 'apiKey' | 'baseURL'> & { apiKey?: string };

export interface ConformanceAdapter {
  id: ProviderId;
  api: string;
  wire: WireFormat;
  create(serverUrl: string, options?: ConformanceOptions): ModelProvider;
}

function connection(baseURL: string, options: ConformanceOptions = {}): ProviderClientOptions {
  return { apiKey: 'test-key-12345', maxRetries: 0, ...options, baseURL };
}

/** Each adapter's wire format; keyed by id, so an adapter without one does not compile. */
const WIRES: { readonly [id in ProviderId]: WireFormat } = {
  openai: responsesWire,
  'openai-compatible': chatWire,
  anthropic: anthropicWire,
  gemini: geminiInteractionsWire,
  'gemini-generate-content': geminiGenerateContentWire,
};

/**
 * The path an adapter's SDK expects below the server's root, as its default base URL has it (`/v1`);
 * `openai-compatible` has no default and is reached at `/v1`, where most such servers answer.
 */
function basePath(adapter: ProviderAdapter): string {
  const path = adapter.defaultBaseUrl === undefined ? '/v1' : new URL(adapter.defaultBaseUrl).pathname;
  return path.replace(/\/+$/, '');
}

/** Every adapter of `PROVIDER_ADAPTERS`, in `PROVIDER_IDS` order. */
export const CONFORMANCE_ADAPTERS: readonly ConformanceAdapter[] = PROVIDER_IDS.map((id) => {
  const adapter = PROVIDER_ADAPTERS[id];
  return {
    id,
    api: adapter.api,
    wire: WIRES[id],
    create: (url: string, options?: ConformanceOptions) =>
      adapter.create(connection(`${url}${basePath(adapter)}`, options)),
  };
});
