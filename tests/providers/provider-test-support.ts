/** Shared pieces of the provider adapter tests: requests, event collection, delta merging. */

import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { ToolDefinition } from '../../src/contracts/tool-definition.ts';
import type { ModelRequest } from '../../src/providers/model-provider.ts';

export const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather for a place.',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', minLength: 1 }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['location'],
    additionalProperties: false,
  },
};

export function makeRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    history: [{ type: 'user_text', text: 'What is the weather in Paris?' }],
    tools: [weatherTool],
    signal: new AbortController().signal,
    ...overrides,
  };
}

export async function collect(stream: AsyncIterable<ProviderEvent>): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/**
 * Merges adjacent `text_delta`s, and adjacent `tool_call_arguments_delta`s of one call, so long recorded
 * streams can be compared as exact sequences without listing every fragment.
 */
export function mergeDeltas(events: readonly ProviderEvent[]): ProviderEvent[] {
  const merged: ProviderEvent[] = [];
  for (const event of events) {
    const last = merged[merged.length - 1];
    if (event.type === 'text_delta' && last?.type === 'text_delta') {
      merged[merged.length - 1] = { type: 'text_delta', delta: last.delta + event.delta };
    } else if (
      event.type === 'tool_call_arguments_delta' &&
      last?.type === 'tool_call_arguments_delta' &&
      last.callId === event.callId
    ) {
      merged[merged.length - 1] = { ...last, delta: last.delta + event.delta };
    } else {
      merged.push(event);
    }
  }
  return merged;
}

/** How many events of a type a stream produced. */
export function countOf(events: readonly ProviderEvent[], type: ProviderEvent['type']): number {
  return events.filter((event) => event.type === type).length;
}
