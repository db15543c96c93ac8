/**
 * The conformance kit's one list of adapters: each entry builds its provider against the replay server
 * and names its wire format's body builder. Adding an adapter means one entry here (and its recordings
 * in `__fixtures__/provider-streams/` with an exact-event test); the contract table then runs for it.
 */

import type { ProviderId } from '../../../src/contracts/provider-id.ts';
import { createAnthropicMessagesProvider } from '../../../src/providers/anthropic-messages-provider.ts';
import { createGeminiGenerateContentProvider } from '../../../src/providers/gemini-generate-content-provider.ts';
import { createGeminiInteractionsProvider } from '../../../src/providers/gemini-interactions-provider.ts';
import type { ModelProvider } from '../../../src/providers/model-provider.ts';
import { createOpenAIChatProvider } from '../../../src/providers/openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from '../../../src/providers/openai-responses-provider.ts';
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

export const CONFORMANCE_ADAPTERS: readonly ConformanceAdapter[] = [
  {
    id: 'openai',
    api: 'Responses',
    wire: responsesWire,
    create: (url, options) => createOpenAIResponsesProvider(connection(`${url}/v1`, options)),
  },
  {
    id: 'openai-compatible',
    api: 'Chat Completions',
    wire: chatWire,
    create: (url, options) => createOpenAIChatProvider(connection(`${url}/v1`, options)),
  },
  {
    id: 'anthropic',
    api: 'Messages',
    wire: anthropicWire,
    create: (url, options) => createAnthropicMessagesProvider(connection(url, options)),
  },
  {
    id: 'gemini',
    api: 'Interactions',
    wire: geminiInteractionsWire,
    create: (url, options) => createGeminiInteractionsProvider(connection(url, options)),
  },
  {
    id: 'gemini-generate-content',
    api: 'generateContent',
    wire: geminiGenerateContentWire,
    create: (url, options) => createGeminiGenerateContentProvider(connection(url, options)),
  },
];
