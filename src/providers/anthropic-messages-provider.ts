/**
 * Anthropic Messages adapter (provider id `anthropic`) through the official `@anthropic-ai/sdk`.
 *
 * Requests carry the whole history: one assistant message per model response (its `thinking` blocks
 * replayed verbatim with their signatures, its text, its `tool_use` blocks with `input` objects), then
 * every result of that response as `tool_result` blocks (`tool_use_id`, `is_error` for failures) in ONE
 * user message, as the API requires; a user text that follows joins that same message.
 *
 * Stream contract (`model-provider.ts`): never throws. A `tool_use` block is completed by its `content_block_stop`
 * with the raw accumulated `partial_json` (`""` → `"{}"`, invalid JSON passed through for the loop to
 * answer with `validation_failed`). A block cut off by `max_tokens` is never completed, whether or not
 * the server still sends its stop: the last stopped call is held until a later block starts or
 * `message_delta` shows a stop reason other than the output limit, and the turn finishes with `length`.
 * `thinking`/`redacted_thinking` blocks and the blocks the server ran itself (`server_tool_use`, web
 * search and tool search results…) become `provider_item`s in stream order, so the history replays the
 * assistant content block for block as the API returned it. A `refusal` stop finishes with `refusal`.
 * A body that ends before `message_delta` has given the stop reason finishes with `error` (one that ends
 * after it, missing only the `message_stop` terminator, finishes normally); an abort with `cancelled`.
 */
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  RawMessageStreamEvent,
  StopReason,
} from '@anthropic-ai/sdk/resources/messages';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { AnswerFinishReason, ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';
import { finishForTruncatedStream, finishFromError, finishWithReason, makeUsage } from './finish-events.ts';
import { HeldCallCompletion } from './held-call-completion.ts';
import type { ModelProvider, ModelRequest } from './model-provider.ts';
import { normalizeToolArguments, parseArgumentsObject } from './normalize-tool-arguments.ts';
import { watchedFetch } from './stream-watch.ts';
import {
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type ProviderClientOptions,
  streamingProvider,
} from './streaming-provider.ts';
import { toolDefsToAnthropic } from './tool-mapper.ts';

export interface AnthropicMessagesProviderOptions extends ProviderClientOptions {
  /** `max_tokens` of every request (required by the API; default 8192). */
  maxTokens?: number;
}

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** The Messages API history for a provider-neutral history. Pure. */
export function historyToAnthropicMessages(history: readonly ConversationItem[]): MessageParam[] {
  const messages: MessageParam[] = [];
  let current: { role: 'user' | 'assistant'; content: ContentBlockParam[] } | undefined;
  const blocksFor = (role: 'user' | 'assistant'): ContentBlockParam[] => {
    if (!current || current.role !== role) {
      current = { role, content: [] };
      messages.push(current);
    }
    return current.content;
  };
  for (const item of history) {
    switch (item.type) {
      case 'user_text':
        blocksFor('user').push({ type: 'text', text: item.text });
        break;
      case 'assistant_text':
        if (item.text) blocksFor('assistant').push({ type: 'text', text: item.text });
        break;
      case 'tool_call':
        blocksFor('assistant').push({
          type: 'tool_use',
          id: item.callId,
          name: item.name,
          input: parseArgumentsObject(item.arguments),
        });
        break;
      case 'tool_result':
        blocksFor('user').push({
          type: 'tool_result',
          tool_use_id: item.callId,
          content: item.output,
          ...(item.ok ? {} : { is_error: true }),
        });
        break;
      case 'provider_item':
        if (item.provider === 'anthropic')
          blocksFor('assistant').push(structuredClone(item.data) as ContentBlockParam);
        break;
    }
  }
  return messages;
}

/** The streaming request body for one iteration. Pure. */
export function buildAnthropicRequest(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<AnthropicMessagesProviderOptions, 'maxTokens'> = {},
): MessageCreateParamsStreaming {
  return {
    model: request.model,
    max_tokens: options.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS,
    ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
    messages: historyToAnthropicMessages(request.history),
    ...toolFields(request),
    stream: true,
  };
}

/**
 * The `tools` (and `tool_choice`) of a request. The API refuses a history holding `tool_use` blocks
 * when the request defines no tools, so when the loop withholds tools (its last allowed iteration) the
 * tools already called are declared again as bare stubs with `tool_choice: none`: the history stays
 * valid and the model cannot call anything.
 */
function toolFields(
  request: Omit<ModelRequest, 'signal'>,
): Pick<MessageCreateParamsStreaming, 'tools' | 'tool_choice'> {
  if (request.tools.length > 0) return { tools: toolDefsToAnthropic(request.tools) };
  const calledNames = [
    ...new Set(request.history.flatMap((item) => (item.type === 'tool_call' ? [item.name] : []))),
  ];
  if (calledNames.length === 0) return {};
  return {
    tools: calledNames.map((name) => ({
      name,
      description: 'Not available in this step.',
      input_schema: { type: 'object' as const },
    })),
    tool_choice: { type: 'none' },
  };
}

type OpenBlock =
  | { kind: 'tool_use'; callId: string; name: string; argumentsText: string }
  | { kind: 'thinking'; block: Record<string, unknown> }
  /** A block the server ran itself (`server_tool_use`, `web_search_tool_result`…), kept for replay. */
  | { kind: 'server'; block: Record<string, unknown>; inputText: string }
  | { kind: 'other' };

/**
 * Blocks the API produced and executed itself: they are replayed verbatim and in place, so a continued
 * turn is exactly what the model produced (the text on either side stays two separate blocks).
 */
function isServerBlock(type: string): boolean {
  return type === 'server_tool_use' || type === 'mcp_tool_use' || type.endsWith('_tool_result');
}

function mapStopReason(reason: StopReason | null, completedCalls: number): AnswerFinishReason {
  if (reason === 'refusal') return 'refusal';
  if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
  if (reason === 'tool_use') return 'tool_calls';
  return completedCalls > 0 ? 'tool_calls' : 'stop';
}

function finishForStop(
  reason: StopReason | null,
  completedCalls: number,
  usage: TokenUsage | undefined,
): ProviderEvent {
  return finishWithReason(mapStopReason(reason, completedCalls), usage);
}

interface AnthropicInputUsage {
  input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/**
 * All prompt tokens: Anthropic counts cached ones apart from `input_tokens`, while OpenAI and Gemini
 * include them in their input count; the sum keeps `inputTokens` comparable across providers.
 */
function totalInputTokens(usage: AnthropicInputUsage | null | undefined): number | undefined {
  if (typeof usage?.input_tokens !== 'number') return undefined;
  return usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

/** Translates a Messages event stream into `ProviderEvent`s. Never throws. */
export async function* translateAnthropicStream(
  events: AsyncIterable<RawMessageStreamEvent>,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const blocks = new Map<number, OpenBlock>();
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let stopReason: StopReason | null = null;
  const calls = new HeldCallCompletion();
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'message_start':
          inputTokens = totalInputTokens(event.message.usage);
          outputTokens = event.message.usage?.output_tokens ?? undefined;
          break;
        case 'content_block_start': {
          yield* calls.release();
          const block = event.content_block;
          if (block.type === 'tool_use') {
            blocks.set(event.index, {
              kind: 'tool_use',
              callId: block.id,
              name: block.name,
              argumentsText: '',
            });
            yield { type: 'tool_call_started', callId: block.id, name: block.name };
          } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
            blocks.set(event.index, { kind: 'thinking', block: { ...block } });
          } else if (isServerBlock(block.type)) {
            blocks.set(event.index, { kind: 'server', block: { ...block }, inputText: '' });
          } else {
            blocks.set(event.index, { kind: 'other' });
            if (block.type === 'text' && block.text) yield { type: 'text_delta', delta: block.text };
          }
          break;
        }
        case 'content_block_delta': {
          const open = blocks.get(event.index);
          const delta = event.delta;
          if (delta.type === 'text_delta') {
            if (delta.text) yield { type: 'text_delta', delta: delta.text };
          } else if (delta.type === 'input_json_delta' && open?.kind === 'tool_use') {
            if (delta.partial_json) {
              open.argumentsText += delta.partial_json;
              yield { type: 'tool_call_arguments_delta', callId: open.callId, delta: delta.partial_json };
            }
          } else if (delta.type === 'input_json_delta' && open?.kind === 'server') {
            open.inputText += delta.partial_json;
          } else if (delta.type === 'thinking_delta' && open?.kind === 'thinking') {
            open.block.thinking = `${String(open.block.thinking ?? '')}${delta.thinking}`;
          } else if (delta.type === 'signature_delta' && open?.kind === 'thinking') {
            open.block.signature = `${String(open.block.signature ?? '')}${delta.signature}`;
          }
          break;
        }
        case 'content_block_stop': {
          const open = blocks.get(event.index);
          blocks.delete(event.index);
          if (open?.kind === 'tool_use') {
            calls.hold({
              type: 'tool_call_completed',
              callId: open.callId,
              name: open.name,
              arguments: normalizeToolArguments(open.argumentsText),
            });
          } else if (open?.kind === 'thinking') {
            yield { type: 'provider_item', provider: 'anthropic', data: open.block };
          } else if (open?.kind === 'server') {
            const block = open.inputText
              ? { ...open.block, input: parseArgumentsObject(open.inputText) }
              : open.block;
            yield { type: 'provider_item', provider: 'anthropic', data: block };
          }
          break;
        }
        case 'message_delta':
          stopReason = event.delta.stop_reason ?? stopReason;
          if (mapStopReason(stopReason, 0) === 'length') calls.discard();
          else if (stopReason !== null) yield* calls.release();
          outputTokens = event.usage?.output_tokens ?? outputTokens;
          inputTokens = totalInputTokens(event.usage) ?? inputTokens;
          break;
        case 'message_stop':
          if (mapStopReason(stopReason, 0) !== 'length') yield* calls.release();
          yield finishForStop(stopReason, calls.released, makeUsage(inputTokens, outputTokens));
          return;
      }
    }
    if (stopReason !== null && !signal.aborted) {
      // `message_delta` carried the model's stop reason; only the `message_stop` terminator is missing
      // (recorded streams often lose it with the final newline), and every block has already ended.
      yield finishForStop(stopReason, calls.released, makeUsage(inputTokens, outputTokens));
      return;
    }
    yield finishForTruncatedStream(signal, makeUsage(inputTokens, outputTokens));
  } catch (error) {
    yield finishFromError(error, signal, makeUsage(inputTokens, outputTokens));
  }
}

/** A `ModelProvider` for the Anthropic Messages API through the official SDK. */
export function createAnthropicMessagesProvider(options: AnthropicMessagesProviderOptions): ModelProvider {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    fetch: watchedFetch(),
  });
  return streamingProvider<RawMessageStreamEvent>(
    { id: 'anthropic', options, secret: options.apiKey },
    (request) => ({
      open: () => client.messages.create(buildAnthropicRequest(request, options), { signal: request.signal }),
      translate: (events) => translateAnthropicStream(events, request.signal),
    }),
  );
}
