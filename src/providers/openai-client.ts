/**
 * The `openai` SDK client both OpenAI adapters (Responses, Chat Completions) use, built the same way
 * from their connection options: the SDK's own retries off (`openAndTranslate` is the one retry loop),
 * every request through the stall watch, and the whole-request timeout.
 */
import OpenAI from 'openai';
import { watchedFetch } from './stream-watch.ts';
import { DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderClientOptions } from './streaming-provider.ts';

export function createOpenAIClient(options: ProviderClientOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    fetch: watchedFetch(),
  });
}
