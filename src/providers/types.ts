/**
 * The provider contract (docs/providers.md). Every adapter turns its SDK's stream
 * into `ProviderEvent`s and builds its next request from the provider-neutral `ConversationItem`
 * history. Providers never import tools: they receive `ToolDefinition[]`.
 *
 * Adapter rule: once `stream()` has started it never throws; any failure (HTTP error, cut stream,
 * abort) ends the stream with a `finish` event whose reason is `error` or `cancelled`.
 */
import type { ToolDefinition } from '../contracts/tool-definition.ts';

/** Provider ids used in the API, the CLI and the database. */
export type ProviderId = 'openai' | 'openai-compatible' | 'gemini' | 'gemini-generate-content' | 'anthropic';
export const PROVIDER_IDS: readonly ProviderId[] = [
  'openai',
  'openai-compatible',
  'gemini',
  'gemini-generate-content',
  'anthropic',
];

export interface TokenUsage {
  inputTokens?: number;
  outputTokens?: number;
}

export type FinishReason =
  /** The model finished its answer (no tool calls). */
  | 'stop'
  /** The model asked for tool calls and waits for their results. */
  | 'tool_calls'
  /** Output token limit reached. */
  | 'length'
  /** The model declined to answer; its refusal text was streamed as text. */
  | 'refusal'
  /** The provider's safety system stopped or withheld the answer. */
  | 'content_filter'
  /** The request was aborted by the caller. */
  | 'cancelled'
  /** Transport or provider failure; `message` says what happened. */
  | 'error';

export type ProviderEvent =
  | { type: 'text_delta'; delta: string }
  | { type: 'tool_call_started'; callId: string; name: string }
  | { type: 'tool_call_arguments_delta'; callId: string; delta: string }
  /**
   * `arguments` is the raw JSON text the model produced (`""` already normalized to `"{}"`); the loop
   * parses it, so invalid JSON becomes a `validation_failed` result the model can correct.
   * `providerData` is anything the provider needs replayed with this call (e.g. Gemini thought signatures).
   */
  | { type: 'tool_call_completed'; callId: string; name: string; arguments: string; providerData?: unknown }
  /** An opaque item the provider needs replayed in the next request (e.g. Responses reasoning items). */
  | { type: 'provider_item'; provider: ProviderId; data: unknown }
  /** The request failed transiently and is retried after `waitSeconds` (attempt 1 is the first retry). */
  | { type: 'provider_retry'; attempt: number; waitSeconds: number }
  | { type: 'finish'; reason: FinishReason; usage?: TokenUsage; message?: string };

/** Provider-neutral conversation history; one item per persisted message row. */
export type ConversationItem =
  | { type: 'user_text'; text: string }
  | { type: 'assistant_text'; text: string }
  | { type: 'tool_call'; callId: string; name: string; arguments: string; providerData?: unknown }
  /** `output` is the serialized result (or error) exactly as it was sent to the model. */
  | { type: 'tool_result'; callId: string; name: string; ok: boolean; output: string }
  | { type: 'provider_item'; provider: ProviderId; data: unknown };

export interface ModelRequest {
  model: string;
  systemPrompt?: string;
  history: readonly ConversationItem[];
  /** Tools offered this iteration; empty when the loop withholds them. */
  tools: readonly ToolDefinition[];
  signal: AbortSignal;
}

export interface ModelProvider {
  readonly id: ProviderId;
  stream(request: ModelRequest): AsyncIterable<ProviderEvent>;
}
