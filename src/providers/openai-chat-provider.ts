/**
 * OpenAI-compatible Chat Completions adapter (provider id `openai-compatible`): the `openai` SDK with any
 * `baseURL` — Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, DeepSeek, Groq, Mistral, xAI, DashScope…
 *
 * Requests carry the whole history as messages: one assistant message per model response (its text and
 * its `tool_calls`), then one `role: tool` message per result with its `tool_call_id`. Reasoning text that
 * a server streamed as `reasoning_content` (DeepSeek, xAI, Qwen) or `reasoning` (OpenRouter, vLLM) is kept
 * as a `provider_item` and sent back on that assistant message within the current turn's tool loop, which
 * DeepSeek requires there (earlier turns' reasoning is dropped, as DeepSeek asks).
 *
 * Tool-call chunks vary widely between servers, and all of these are handled: arguments whole or in
 * fragments; parallel calls by `index`; a missing `index` (Mistral: a call per id); an `index` starting at
 * 1; empty or missing ids and empty names on continuation chunks; a reused index with a new id or
 * another name (a new call); calls without any id (an id is generated); `finish_reason` in the same chunk as the call.
 * Calls are completed when `finish_reason` arrives (not on `length`, whose arguments are cut). A body that
 * ends without a `finish_reason` is a cut stream (`finish` `error`, no pending call completed) unless it
 * ended with `data: [DONE]` after an answer and no call: some servers never send a finish reason.
 * A refusal (`delta.refusal`) is streamed as text and finishes with `refusal`; `content_filter` with
 * `content_filter`.
 */
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { AnswerFinishReason, ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import { finishForTruncatedStream, finishFromError, finishWithReason, makeUsage } from './finish-events.ts';
import type { ModelProvider, ModelRequest } from './model-provider.ts';
import { normalizeToolArguments } from './normalize-tool-arguments.ts';
import { createOpenAIClient } from './openai-client.ts';
import { type ProviderClientOptions, streamingProvider } from './streaming-provider.ts';
import { toolDefsToChatCompletions } from './tool-mapper.ts';

export interface OpenAIChatProviderOptions extends ProviderClientOptions {
  /** Provider id this instance reports and whose `provider_item`s it replays (default `openai-compatible`). */
  id?: ProviderId;
  /** Makes an id for a call the server sent without one (default: `call_` + random hex). */
  createCallId?: () => string;
  /** Ask for a final usage chunk (`stream_options.include_usage`, default true). */
  includeUsage?: boolean;
}

/** What this adapter stores in a `provider_item`: the reasoning text the server streamed. */
export interface ChatReasoningItem {
  type: 'reasoning_content';
  text: string;
}

type AssistantMessage = ChatCompletionAssistantMessageParam & { reasoning_content?: string };

function isReasoningItem(data: unknown): data is ChatReasoningItem {
  return (
    typeof data === 'object' &&
    data !== null &&
    (data as ChatReasoningItem).type === 'reasoning_content' &&
    typeof (data as ChatReasoningItem).text === 'string'
  );
}

/** The Chat Completions messages for a system prompt and a provider-neutral history. Pure. */
export function historyToChatMessages(
  systemPrompt: string | undefined,
  history: readonly ConversationItem[],
  providerId: ProviderId = 'openai-compatible',
): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [];
  if (systemPrompt) messages.push({ role: 'system', content: systemPrompt });
  // Reasoning is sent back only within the current turn's tool loop (after the last user message):
  // DeepSeek requires it there and refuses or ignores it on earlier turns.
  const currentTurnStart = history.findLastIndex((item) => item.type === 'user_text');
  let assistant: AssistantMessage | undefined;
  const flushAssistant = () => {
    if (assistant) messages.push(assistant);
    assistant = undefined;
  };
  const currentAssistant = (): AssistantMessage => {
    assistant ??= { role: 'assistant', content: null };
    return assistant;
  };
  for (const [position, item] of history.entries()) {
    switch (item.type) {
      case 'user_text':
        flushAssistant();
        messages.push({ role: 'user', content: item.text });
        break;
      case 'assistant_text': {
        // Empty text is not replayed: some servers refuse an assistant message with neither content
        // nor tool calls.
        if (!item.text) break;
        const message = currentAssistant();
        message.content = typeof message.content === 'string' ? message.content + item.text : item.text;
        break;
      }
      case 'tool_call': {
        const message = currentAssistant();
        message.tool_calls = [
          ...(message.tool_calls ?? []),
          { id: item.callId, type: 'function', function: { name: item.name, arguments: item.arguments } },
        ];
        break;
      }
      case 'tool_result':
        flushAssistant();
        messages.push({ role: 'tool', tool_call_id: item.callId, content: item.output });
        break;
      case 'provider_item':
        if (item.provider === providerId && isReasoningItem(item.data) && position > currentTurnStart) {
          const message = currentAssistant();
          message.reasoning_content = (message.reasoning_content ?? '') + item.data.text;
        }
        break;
    }
  }
  flushAssistant();
  return messages;
}

/** The streaming request body for one iteration. Pure. */
export function buildChatRequest(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<OpenAIChatProviderOptions, 'id' | 'includeUsage'> = {},
): ChatCompletionCreateParamsStreaming {
  return {
    model: request.model,
    messages: historyToChatMessages(request.systemPrompt, request.history, options.id ?? 'openai-compatible'),
    ...(request.tools.length > 0 ? { tools: toolDefsToChatCompletions(request.tools) } : {}),
    stream: true,
    ...((options.includeUsage ?? true) ? { stream_options: { include_usage: true } } : {}),
  };
}

interface CallSlot {
  callId: string;
  serverId: string | undefined;
  name: string;
  argumentsText: string;
  started: boolean;
}

type ChunkDelta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: unknown; reasoning?: unknown };
type ChunkToolCall = Partial<ChatCompletionChunk.Choice.Delta.ToolCall>;

function mapFinishReason(reason: string, hasCalls: boolean): AnswerFinishReason {
  if (reason === 'length') return 'length';
  if (reason === 'content_filter') return 'content_filter';
  // `tool_calls` with no call streamed (some servers say it regardless) has nothing to wait for.
  return hasCalls ? 'tool_calls' : 'stop';
}

function defaultCallId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** Translates a Chat Completions chunk stream into `ProviderEvent`s. Never throws. */
export async function* translateChatStream(
  chunks: AsyncIterable<ChatCompletionChunk>,
  signal: AbortSignal,
  options: {
    providerId?: ProviderId;
    createCallId?: () => string;
    /** Whether the body carried `data: [DONE]` (the SDK ends the same way with or without it). */
    sawDone?: () => boolean;
  } = {},
): AsyncGenerator<ProviderEvent> {
  const providerId = options.providerId ?? 'openai-compatible';
  const createCallId = options.createCallId ?? defaultCallId;
  const slots: CallSlot[] = [];
  const slotsByIndex = new Map<number, CallSlot>();
  const slotsByServerId = new Map<string, CallSlot>();
  let reasoningText = '';
  let finishReason: string | undefined;
  let usage: TokenUsage | undefined;
  let completed = false;
  let refused = false;
  let produced = false;

  function* complete(): Generator<ProviderEvent> {
    if (completed) return;
    completed = true;
    if (reasoningText) {
      yield {
        type: 'provider_item',
        provider: providerId,
        data: { type: 'reasoning_content', text: reasoningText },
      };
    }
    // Arguments cut by the output limit or the content filter are not a call.
    if (finishReason === 'length' || finishReason === 'content_filter') return;
    for (const slot of slots) {
      if (!slot.started) {
        slot.started = true;
        yield { type: 'tool_call_started', callId: slot.callId, name: slot.name };
      }
      yield {
        type: 'tool_call_completed',
        callId: slot.callId,
        name: slot.name,
        arguments: normalizeToolArguments(slot.argumentsText),
      };
    }
  }

  function findSlot(toolCall: ChunkToolCall): CallSlot {
    const serverId = toolCall.id ? toolCall.id : undefined;
    const name = toolCall.function?.name;
    let slot: CallSlot | undefined;
    if (typeof toolCall.index === 'number') {
      slot = slotsByIndex.get(toolCall.index);
      if (slot && serverId && slot.serverId && serverId !== slot.serverId) slot = undefined;
      // Continuation chunks repeat the name or leave it empty; another name at this index is a new call.
      if (slot && name && slot.name && name !== slot.name) slot = undefined;
    } else if (serverId) {
      slot = slotsByServerId.get(serverId);
    } else {
      slot = slots[slots.length - 1];
    }
    if (!slot) {
      slot = { callId: serverId ?? createCallId(), serverId, name: '', argumentsText: '', started: false };
      slots.push(slot);
      if (serverId) slotsByServerId.set(serverId, slot);
    }
    if (typeof toolCall.index === 'number') slotsByIndex.set(toolCall.index, slot);
    return slot;
  }

  try {
    for await (const chunk of chunks) {
      if (chunk.usage) usage = makeUsage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens) ?? usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = (choice.delta ?? {}) as ChunkDelta;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string') reasoningText += reasoning;
      if (typeof reasoning === 'string' && reasoning !== '') produced = true;
      if (typeof delta.content === 'string' && delta.content !== '') {
        produced = true;
        yield { type: 'text_delta', delta: delta.content };
      }
      // A refusal streams as `delta.refusal` with `content: null`: it is the answer the user must see.
      if (typeof delta.refusal === 'string' && delta.refusal !== '') {
        produced = true;
        refused = true;
        yield { type: 'text_delta', delta: delta.refusal };
      }
      for (const toolCall of (delta.tool_calls ?? []) as ChunkToolCall[]) {
        const slot = findSlot(toolCall);
        const name = toolCall.function?.name;
        if (name && !slot.name) slot.name = name;
        const fragment = toolCall.function?.arguments ?? '';
        slot.argumentsText += fragment;
        if (!slot.started && slot.name) {
          slot.started = true;
          yield { type: 'tool_call_started', callId: slot.callId, name: slot.name };
          if (slot.argumentsText) {
            yield { type: 'tool_call_arguments_delta', callId: slot.callId, delta: slot.argumentsText };
          }
        } else if (slot.started && fragment) {
          yield { type: 'tool_call_arguments_delta', callId: slot.callId, delta: fragment };
        }
      }
      if (choice.finish_reason) {
        finishReason = choice.finish_reason;
        yield* complete();
      }
    }
    if (finishReason === undefined) {
      // Some servers never send a finish reason; `[DONE]` after an answer with no call still open is
      // a normal end. Without `[DONE]` the body was cut.
      if (!options.sawDone?.() || !produced || slots.length > 0) {
        yield finishForTruncatedStream(signal, usage);
        return;
      }
      finishReason = 'stop';
      yield* complete();
    }
    const reason = mapFinishReason(finishReason, slots.length > 0);
    yield finishWithReason(reason !== 'content_filter' && refused ? 'refusal' : reason, usage);
  } catch (error) {
    yield finishFromError(error, signal, usage);
  }
}

/** Watches a response body for the `data: [DONE]` line that ends a complete Chat Completions stream. */
function doneSentinelDetector() {
  let tail = '';
  const detector = {
    seen: false,
    observe(text: string) {
      const window = tail + text;
      if (/(^|\n)data: ?\[DONE\]/.test(window)) detector.seen = true;
      tail = window.slice(-32);
    },
  };
  return detector;
}

/** A `ModelProvider` for Chat Completions servers through the official `openai` SDK. */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions): ModelProvider {
  const id = options.id ?? 'openai-compatible';
  const client = createOpenAIClient(options);
  return streamingProvider<ChatCompletionChunk>({ id, options, secret: options.apiKey }, (request) => {
    const sentinel = doneSentinelDetector();
    return {
      open: () =>
        client.chat.completions.create(buildChatRequest(request, options), { signal: request.signal }),
      translate: (events) =>
        translateChatStream(events, request.signal, {
          providerId: id,
          sawDone: () => sentinel.seen,
          ...(options.createCallId ? { createCallId: options.createCallId } : {}),
        }),
      observe: sentinel.observe,
    };
  });
}
