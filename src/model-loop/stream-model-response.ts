/**
 * One model response as the turn loop consumes it: every provider event is passed on as it arrives, and
 * the response is summed up as what it produced — its items in stream order (consecutive text deltas
 * joined into one `assistant_text`) and its completed tool calls — or as failed or cancelled with the
 * text streamed so far. A stream that throws, ends without `finish`, or stops inside a tool call is a
 * failure, never a partial success, so no call of a broken response is ever run. The caller's signal
 * ends the stream even when the provider ignores it.
 */

import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { FinishReason, ProviderEvent } from '../contracts/provider-event.ts';
import { errorMessage } from '../errors/error-message.ts';
import type { ModelProvider, ModelRequest } from '../providers/model-provider.ts';
import { iterateUntilAborted } from './abortable-iteration.ts';

export type ToolCallItem = Extract<ConversationItem, { type: 'tool_call' }>;

/** How one model response ended. */
export type ModelResponse =
  | {
      status: 'finished';
      reason: FinishReason;
      message?: string;
      items: ConversationItem[];
      calls: ToolCallItem[];
    }
  | { status: 'failed'; message: string; text: string }
  | { status: 'cancelled'; text: string };

/**
 * Streams one model response, yielding every provider event, and returns what it produced. Items are
 * in stream order; consecutive text deltas become one `assistant_text` item.
 */
export async function* streamModelResponse(
  provider: ModelProvider,
  request: ModelRequest,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent, ModelResponse> {
  const items: ConversationItem[] = [];
  const calls: ToolCallItem[] = [];
  const openCalls = new Map<string, string>();
  let allText = '';
  let pendingText = '';
  const flushText = () => {
    if (pendingText !== '') items.push({ type: 'assistant_text', text: pendingText });
    pendingText = '';
  };
  let stream: AsyncGenerator<ProviderEvent, 'aborted' | 'done'> | undefined;
  try {
    stream = iterateUntilAborted(provider.stream(request), signal);
    while (true) {
      const step = await stream.next();
      if (step.done) {
        if (step.value === 'aborted' || signal.aborted) return { status: 'cancelled', text: allText };
        return {
          status: 'failed',
          message: 'The provider stream ended without a finish event.',
          text: allText,
        };
      }
      const event = step.value;
      yield event;
      switch (event.type) {
        case 'text_delta':
          pendingText += event.delta;
          allText += event.delta;
          break;
        case 'tool_call_started':
          openCalls.set(event.callId, event.name);
          break;
        case 'tool_call_arguments_delta':
          break;
        case 'tool_call_completed': {
          flushText();
          openCalls.delete(event.callId);
          const call: ToolCallItem = {
            type: 'tool_call',
            callId: event.callId,
            name: event.name,
            arguments: event.arguments,
          };
          if (event.providerData !== undefined) call.providerData = event.providerData;
          items.push(call);
          calls.push(call);
          break;
        }
        case 'provider_item':
          flushText();
          items.push({ type: 'provider_item', provider: event.provider, data: event.data });
          break;
        case 'finish': {
          if (event.reason === 'cancelled' || signal.aborted) return { status: 'cancelled', text: allText };
          if (event.reason === 'error') {
            return {
              status: 'failed',
              message: event.message ?? 'The provider reported an error.',
              text: allText,
            };
          }
          if (openCalls.size > 0) {
            const names = [...openCalls.values()].join(', ');
            return {
              status: 'failed',
              message: `The model's stream ended in the middle of a tool call (${names}); nothing was run.`,
              text: allText,
            };
          }
          flushText();
          return {
            status: 'finished',
            reason: event.reason,
            ...(event.message !== undefined ? { message: event.message } : {}),
            items,
            calls,
          };
        }
      }
    }
  } catch (error) {
    if (signal.aborted) return { status: 'cancelled', text: allText };
    return {
      status: 'failed',
      message: `The provider failed: ${errorMessage(error)}`,
      text: allText,
    };
  } finally {
    await stream?.return('done');
  }
}
