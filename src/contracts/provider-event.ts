/**
 * What a provider adapter streams, in provider-neutral terms: text, tool calls, opaque items to replay,
 * retries and one final `finish`. The chat loop consumes these events and passes them on to clients as
 * turn events, so the type sits at the bottom of the layer order (docs/architecture.md).
 */
import type { ProviderId } from './provider-id.ts';

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

/** The reasons a provider gives for an answer it ended itself (failures and aborts are the others). */
export type AnswerFinishReason = Exclude<FinishReason, 'error' | 'cancelled'>;

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
