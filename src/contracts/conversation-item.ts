/**
 * The provider-neutral conversation history: what the chat service stores, the data layer persists and
 * every provider adapter builds its next request from. Sits at the bottom of the layer order
 * (docs/architecture.md) since those layers do not import each other for it.
 */
import type { ProviderId } from './provider-id.ts';

/**
 * A workspace file the user attached to a message: the model is told its path with the message (the
 * text stays as typed), and clients show it with the message again.
 */
export interface MessageAttachment {
  /** Its real absolute path, as the chat's tools take it. */
  path: string;
}

/** Provider-neutral conversation history; one item per persisted message row. */
export type ConversationItem =
  | { type: 'user_text'; text: string; attachments?: MessageAttachment[] }
  | { type: 'assistant_text'; text: string }
  | { type: 'tool_call'; callId: string; name: string; arguments: string; providerData?: unknown }
  /** `output` is the serialized result (or error) exactly as it was sent to the model. */
  | { type: 'tool_result'; callId: string; name: string; ok: boolean; output: string }
  | { type: 'provider_item'; provider: ProviderId; data: unknown };
