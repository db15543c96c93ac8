/**
 * Asks a provider which models it offers, through the provider's official SDK: `GET /v1/models` for
 * OpenAI and OpenAI-compatible servers and for Anthropic, `models.list` of `@google/genai` for Gemini
 * (the Gemini API or Vertex AI). Answers model ids only (Gemini's `models/` prefix removed), sorted and
 * without duplicates, at most `MAX_LISTED_MODELS`, so a huge catalog cannot flood a page. Any failure
 * (HTTP error, timeout, abort, an answer without ids) is thrown as a `ModelListError` with one line
 * saying what went wrong; the SDKs' own retries are off, the caller decides whether to ask again.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type GoogleGenAIOptions } from '@google/genai';
import OpenAI from 'openai';
import type { ProviderId } from '../contracts/provider-id.ts';
import { MangoError } from '../errors/mango-error.ts';
import { type ModelListing, PROVIDER_ADAPTERS } from './provider-adapters.ts';

/** More than any provider lists today; a server listing more is cut here. */
export const MAX_LISTED_MODELS = 1000;
export const DEFAULT_MODEL_LIST_TIMEOUT_MS = 15_000;

export type ModelListErrorCode = 'provider_unavailable' | 'model_list_failed';

export class ModelListError extends MangoError {
  override name = 'ModelListError';
  override readonly code: ModelListErrorCode;
  constructor(code: ModelListErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.code = code;
  }
  static isInstance(value: unknown): value is ModelListError {
    return value instanceof ModelListError;
  }
}

/** How to reach a provider: what the registry resolved from the environment. */
export interface ModelListConnection {
  apiKey: string;
  baseURL: string;
  /** Vertex AI instead of the Gemini API (`gemini-generate-content` only). */
  vertex?: { project: string; location: string; googleAuthOptions?: GoogleGenAIOptions['googleAuthOptions'] };
  timeoutMs?: number;
}

function tidy(ids: Iterable<string>): string[] {
  const unique = new Set<string>();
  for (const id of ids) {
    const trimmed = id.trim();
    if (trimmed !== '') unique.add(trimmed);
    if (unique.size >= MAX_LISTED_MODELS) break;
  }
  return [...unique].sort((a, b) => a.localeCompare(b));
}

async function collect<T>(items: AsyncIterable<T>, idOf: (item: T) => string | undefined): Promise<string[]> {
  const ids: string[] = [];
  for await (const item of items) {
    const id = idOf(item);
    if (id !== undefined) ids.push(id);
    if (ids.length >= MAX_LISTED_MODELS) break;
  }
  return ids;
}

type Lister = (connection: ModelListConnection, signal: AbortSignal, timeout: number) => Promise<string[]>;

/** One lister per SDK call; an adapter names its own (`modelListing` in provider-adapters.ts). */
const LISTERS: { readonly [listing in ModelListing]: Lister } = {
  'openai-models': (connection, signal, timeout) => {
    const client = new OpenAI({
      apiKey: connection.apiKey,
      baseURL: connection.baseURL,
      maxRetries: 0,
      timeout,
    });
    return collect(client.models.list({ signal }), (model) => model.id);
  },
  'anthropic-models': (connection, signal, timeout) => {
    const client = new Anthropic({
      apiKey: connection.apiKey,
      baseURL: connection.baseURL,
      maxRetries: 0,
      timeout,
    });
    return collect(client.models.list({}, { signal }), (model) => model.id);
  },
  'google-models': async (connection, signal, timeout) => {
    const httpOptions = { baseUrl: connection.baseURL, timeout };
    const client = connection.vertex
      ? new GoogleGenAI({ vertexai: true, ...connection.vertex, httpOptions })
      : new GoogleGenAI({ apiKey: connection.apiKey, httpOptions });
    const pager = await client.models.list({ config: { abortSignal: signal, pageSize: 1000 } });
    return collect(pager, (model) => {
      // A model that cannot generate content (an embedding model) is no choice for a chat.
      const actions = model.supportedActions;
      if (actions && !actions.includes('generateContent')) return undefined;
      return model.name?.replace(/^(?:publishers\/[^/]+\/)?models\//, '');
    });
  },
};

function listWithSdk(
  id: ProviderId,
  connection: ModelListConnection,
  signal: AbortSignal,
): Promise<string[]> {
  const lister = LISTERS[PROVIDER_ADAPTERS[id].modelListing];
  return lister(connection, signal, connection.timeoutMs ?? DEFAULT_MODEL_LIST_TIMEOUT_MS);
}

/** The ids of the models `id` offers. @throws ModelListError */
export async function listProviderModels(
  id: ProviderId,
  connection: ModelListConnection,
  signal: AbortSignal = new AbortController().signal,
): Promise<string[]> {
  let ids: string[];
  try {
    ids = await listWithSdk(id, connection, signal);
  } catch (error) {
    const detail = ((error as Error)?.message ?? String(error)).split('\n')[0]!.slice(0, 300);
    throw new ModelListError('model_list_failed', `${id} did not list its models: ${detail}`, {
      cause: error,
    });
  }
  return tidy(ids);
}
