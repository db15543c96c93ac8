/**
 * The `openai` SDK client both OpenAI adapters (Responses, Chat Completions) use, built the same way
 * from their connection options: SDK retries before the first byte, and the request timeout.
 */
import OpenAI from 'openai';
import { DEFAULT_PROVIDER_TIMEOUT_MS, type ProviderClientOptions } from './stream-support.ts';

export function createOpenAIClient(options: ProviderClientOptions): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 2,
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
  });
}
