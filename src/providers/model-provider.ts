/**
 * The provider contract (docs/providers.md). Every adapter turns its SDK's stream
 * into `ProviderEvent`s and builds its next request from the provider-neutral `ConversationItem`
 * history (both in `src/contracts/`, since the chat loop, the data layer, HTTP and MCP speak them too).
 * Providers never import tools: they receive `ToolDefinition[]`.
 *
 * Adapter rule: once `stream()` has started it never throws; any failure (HTTP error, cut stream,
 * abort) ends the stream with a `finish` event whose reason is `error` or `cancelled`.
 */
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderEvent } from '../contracts/provider-event.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import type { ToolDefinition } from '../contracts/tool-definition.ts';

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
