/**
 * The one list of provider adapters: for every id of `PROVIDER_IDS`, the API it speaks, a line that
 * describes it, the variables that configure it, how its models are listed and how it is built. The
 * registry, the model lister, the HTTP schemas and `docs/providers.md` (checked by a test) all read it,
 * and the test tables of the adapters are keyed by it, so an adapter added here and missing anywhere
 * else fails the type check or a test.
 *
 * The record is keyed by `ProviderId`: an id without an adapter does not compile.
 */
import type { OptionalTextVariableName } from '../config/environment-variables.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import { createAnthropicMessagesProvider } from './anthropic-messages-provider.ts';
import {
  createGeminiGenerateContentProvider,
  type VertexOptions,
} from './gemini-generate-content-provider.ts';
import { createGeminiInteractionsProvider } from './gemini-interactions-provider.ts';
import type { ModelProvider } from './model-provider.ts';
import { createOpenAIChatProvider } from './openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from './openai-responses-provider.ts';
import type { ProviderClientOptions } from './streaming-provider.ts';

/** Which official SDK call lists an adapter's models (`model-lister.ts`). */
export type ModelListing = 'openai-models' | 'anthropic-models' | 'google-models';

export interface ProviderAdapter {
  id: ProviderId;
  /** The provider API the adapter speaks, as its documentation names it. */
  api: string;
  /** One line for people: what the adapter talks to. */
  description: string;
  keyVariable: OptionalTextVariableName;
  baseUrlVariable: OptionalTextVariableName;
  /** `undefined`: the base URL is required. */
  defaultBaseUrl: string | undefined;
  keyRequired: boolean;
  modelListing: ModelListing;
  /** `vertex` is read by `gemini-generate-content` only (Vertex AI instead of the Gemini API). */
  create(options: AdapterOptions): ModelProvider;
}

export type AdapterOptions = ProviderClientOptions & { vertex?: VertexOptions };

export const PROVIDER_ADAPTERS: { readonly [id in ProviderId]: ProviderAdapter } = {
  openai: {
    id: 'openai',
    api: 'Responses',
    description: 'OpenAI through the Responses API',
    keyVariable: 'OPENAI_API_KEY',
    baseUrlVariable: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyRequired: true,
    modelListing: 'openai-models',
    create: (options) => createOpenAIResponsesProvider(options),
  },
  'openai-compatible': {
    id: 'openai-compatible',
    api: 'Chat Completions',
    description: 'any server speaking Chat Completions (Ollama, vLLM, llama.cpp, OpenRouter…)',
    keyVariable: 'OPENAI_COMPATIBLE_API_KEY',
    baseUrlVariable: 'OPENAI_COMPATIBLE_BASE_URL',
    defaultBaseUrl: undefined,
    keyRequired: false,
    modelListing: 'openai-models',
    create: (options) => createOpenAIChatProvider(options),
  },
  gemini: {
    id: 'gemini',
    api: 'Interactions',
    description: 'Gemini through the Interactions API',
    keyVariable: 'GEMINI_API_KEY',
    baseUrlVariable: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    keyRequired: true,
    modelListing: 'google-models',
    create: (options) => createGeminiInteractionsProvider(options),
  },
  'gemini-generate-content': {
    id: 'gemini-generate-content',
    api: 'generateContent',
    description: 'Gemini through generateContent, on the Gemini API or Vertex AI',
    keyVariable: 'GEMINI_API_KEY',
    baseUrlVariable: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    keyRequired: true,
    modelListing: 'google-models',
    create: (options) => createGeminiGenerateContentProvider(options),
  },
  anthropic: {
    id: 'anthropic',
    api: 'Messages',
    description: 'Anthropic through the Messages API',
    keyVariable: 'ANTHROPIC_API_KEY',
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com',
    keyRequired: true,
    modelListing: 'anthropic-models',
    create: (options) => createAnthropicMessagesProvider(options),
  },
};

/** The provider ids as one sentence's list, for schema descriptions: "a, b, c or d". */
export function describeProviderIds(ids: readonly ProviderId[]): string {
  return ids.length <= 1 ? ids.join('') : `${ids.slice(0, -1).join(', ')} or ${ids.at(-1)}`;
}
