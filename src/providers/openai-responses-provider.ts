/**
 * OpenAI Responses adapter (provider id `openai`; also any server that speaks `/v1/responses`, such as
 * LM Studio). Requests are stateless (`store: false`): each one carries the whole history as input items —
 * `function_call` + `function_call_output` paired by `call_id`, and every server-side item the model
 * produced (reasoning with its `encrypted_content`, tool-search calls…) replayed verbatim from the
 * `provider_item` events this adapter emitted, since reasoning models need them to continue a tool loop.
 *
 * Assistant messages keep their `phase` (`commentary` before a call, `final_answer`) for replay. Whether
 * to ask for `reasoning.encrypted_content` is learned per model (`ReasoningMemory`), never guessed from
 * its name. A refusal streams as text and finishes with `refusal`; an answer stopped by the content
 * filter finishes with `content_filter`.
 *
 * Stream contract (`model-provider.ts`): never throws; a call is completed only by its `output_item.done` (and not
 * when that item's status is `incomplete`: the output budget cut its arguments); the
 * stream ends with `finish` — `tool_calls`/`stop` on `response.completed`, `length` when the output
 * budget ran out, `error` for `response.failed`, an `error` event, a transport failure or a body that
 * ends before `response.completed` (so a call cut mid-arguments is never completed), `cancelled` on abort.
 */
import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderEvent } from '../contracts/provider-event.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import { finishForTruncatedStream, finishFromError, finishWithReason, makeUsage } from './finish-events.ts';
import type { ModelProvider, ModelRequest } from './model-provider.ts';
import { normalizeToolArguments } from './normalize-tool-arguments.ts';
import { createOpenAIClient } from './openai-client.ts';
import { type ProviderClientOptions, streamingProvider } from './streaming-provider.ts';
import { toolDefsToResponsesAPI } from './tool-mapper.ts';

export interface OpenAIResponsesProviderOptions extends ProviderClientOptions {
  /** Provider id this instance reports and whose `provider_item`s it replays (default `openai`). */
  id?: ProviderId;
  /**
   * A per-model override of whether to ask for `reasoning.encrypted_content` (needed to replay
   * reasoning statelessly); `undefined` leaves the model to `ReasoningMemory`.
   */
  includeEncryptedReasoning?: (model: string) => boolean | undefined;
}

/** What this adapter stores in a `provider_item` to keep an assistant message's `phase` for replay. */
export interface AssistantPhaseItem {
  type: 'assistant_phase';
  phase: 'commentary' | 'final_answer';
}

function isPhaseItem(data: unknown): data is AssistantPhaseItem {
  const item = data as Partial<AssistantPhaseItem> | null;
  return typeof item === 'object' && item !== null && item.type === 'assistant_phase';
}

/**
 * Whether each model reasons, learned from what it did: a stream that carried a reasoning item says yes;
 * a 400 refusing `include: ["reasoning.encrypted_content"]` (what models without reasoning answer)
 * says no. Unknown models are asked with the include first; model names are not guessed from.
 */
export class ReasoningMemory {
  readonly #answers = new Map<string, boolean>();
  get(model: string): boolean | undefined {
    return this.#answers.get(model);
  }
  set(model: string, reasons: boolean): void {
    this.#answers.set(model, reasons);
  }
}

function historyHasReasoning(history: readonly ConversationItem[], providerId: ProviderId): boolean {
  return history.some(
    (item) =>
      item.type === 'provider_item' &&
      item.provider === providerId &&
      (item.data as { type?: unknown } | null)?.type === 'reasoning',
  );
}

/** Whether a failed request is the 400 a model without reasoning gives to the encrypted-reasoning include. */
export function isIncludeRefusal(error: unknown): boolean {
  if (!(error instanceof Error) || (error as { status?: unknown }).status !== 400) return false;
  if ((error as { param?: unknown }).param === 'include') return true;
  return /include|encrypted[ _]content|reasoning/i.test(error.message);
}

/** The Responses input items for a provider-neutral history. Pure. */
export function historyToResponsesInput(
  history: readonly ConversationItem[],
  providerId: ProviderId = 'openai',
): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const [position, item] of history.entries()) {
    switch (item.type) {
      case 'user_text':
        input.push({ role: 'user', content: item.text });
        break;
      case 'assistant_text': {
        // Empty text carries nothing and an empty message can be refused: it is not replayed.
        if (!item.text) break;
        // The message's `phase` (kept as the item that follows its text) goes back with it: newer
        // models continue worse without it.
        const next = history[position + 1];
        const phase =
          next?.type === 'provider_item' && next.provider === providerId && isPhaseItem(next.data)
            ? next.data.phase
            : undefined;
        input.push({ role: 'assistant', content: item.text, ...(phase ? { phase } : {}) });
        break;
      }
      case 'tool_call':
        input.push({
          type: 'function_call',
          call_id: item.callId,
          name: item.name,
          arguments: item.arguments,
        });
        break;
      case 'tool_result':
        input.push({ type: 'function_call_output', call_id: item.callId, output: item.output });
        break;
      case 'provider_item':
        if (item.provider === providerId && !isPhaseItem(item.data))
          input.push(structuredClone(item.data) as ResponseInputItem);
        break;
    }
  }
  return input;
}

/**
 * Whether a request asks for encrypted reasoning: the per-model override, else what the history shows
 * (a reasoning item), else what `memory` learned about the model, else yes (a refusal is retried
 * without it by the provider).
 */
export function shouldIncludeReasoning(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<OpenAIResponsesProviderOptions, 'id' | 'includeEncryptedReasoning'>,
  memory?: ReasoningMemory,
): boolean {
  const override = options.includeEncryptedReasoning?.(request.model);
  if (override !== undefined) return override;
  if (historyHasReasoning(request.history, options.id ?? 'openai')) return true;
  return memory?.get(request.model) ?? true;
}

/** The streaming request body for one iteration. Pure. */
export function buildResponsesRequest(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<OpenAIResponsesProviderOptions, 'id' | 'includeEncryptedReasoning'> = {},
  includeReasoning: boolean = shouldIncludeReasoning(request, options),
): ResponseCreateParamsStreaming {
  return {
    model: request.model,
    ...(request.systemPrompt ? { instructions: request.systemPrompt } : {}),
    input: historyToResponsesInput(request.history, options.id ?? 'openai'),
    ...(request.tools.length > 0 ? { tools: toolDefsToResponsesAPI(request.tools) } : {}),
    stream: true,
    store: false,
    ...(includeReasoning ? { include: ['reasoning.encrypted_content'] } : {}),
  };
}

interface PendingCall {
  callId: string;
  name: string;
  argumentsText: string;
}

/** Translates a Responses event stream into `ProviderEvent`s. Never throws. */
export async function* translateResponsesStream(
  events: AsyncIterable<ResponseStreamEvent>,
  signal: AbortSignal,
  providerId: ProviderId = 'openai',
): AsyncGenerator<ProviderEvent> {
  const callsByItemId = new Map<string, PendingCall>();
  const callsByOutputIndex = new Map<number, PendingCall>();
  let completedCalls = 0;
  let refused = false;
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'response.output_text.delta':
          if (event.delta) yield { type: 'text_delta', delta: event.delta };
          break;
        case 'response.refusal.delta':
          // The refusal is the answer the user must see; it finishes the response with `refusal`.
          refused = true;
          if (event.delta) yield { type: 'text_delta', delta: event.delta };
          break;
        case 'response.output_item.added':
          if (event.item.type === 'function_call') {
            const call: PendingCall = {
              callId: event.item.call_id,
              name: event.item.name,
              argumentsText: '',
            };
            if (event.item.id) callsByItemId.set(event.item.id, call);
            callsByOutputIndex.set(event.output_index, call);
            yield { type: 'tool_call_started', callId: call.callId, name: call.name };
          }
          break;
        case 'response.function_call_arguments.delta': {
          const call = callsByItemId.get(event.item_id) ?? callsByOutputIndex.get(event.output_index);
          if (call && event.delta) {
            call.argumentsText += event.delta;
            yield { type: 'tool_call_arguments_delta', callId: call.callId, delta: event.delta };
          }
          break;
        }
        case 'response.output_item.done': {
          const item = event.item;
          if (item.type === 'function_call') {
            // An item the output budget cut is done with status `incomplete`: its arguments are partial,
            // so the call is never completed (`response.incomplete` then finishes with `length`).
            if (item.status === 'incomplete') break;
            let call =
              (item.id ? callsByItemId.get(item.id) : undefined) ??
              callsByOutputIndex.get(event.output_index);
            if (!call) {
              call = { callId: item.call_id, name: item.name, argumentsText: '' };
              yield { type: 'tool_call_started', callId: call.callId, name: call.name };
            }
            completedCalls += 1;
            yield {
              type: 'tool_call_completed',
              callId: call.callId,
              name: call.name,
              arguments: normalizeToolArguments(item.arguments || call.argumentsText),
            };
          } else if (item.type === 'message') {
            if (item.phase) {
              const phaseItem: AssistantPhaseItem = { type: 'assistant_phase', phase: item.phase };
              yield { type: 'provider_item', provider: providerId, data: phaseItem };
            }
          } else {
            yield { type: 'provider_item', provider: providerId, data: item };
          }
          break;
        }
        case 'response.completed': {
          const usage = makeUsage(event.response.usage?.input_tokens, event.response.usage?.output_tokens);
          const reason = completedCalls > 0 ? 'tool_calls' : refused ? 'refusal' : 'stop';
          yield finishWithReason(reason, usage);
          return;
        }
        case 'response.incomplete': {
          const reason = event.response.incomplete_details?.reason;
          const usage = makeUsage(event.response.usage?.input_tokens, event.response.usage?.output_tokens);
          if (reason === 'content_filter' || reason === 'max_output_tokens') {
            yield finishWithReason(reason === 'content_filter' ? 'content_filter' : 'length', usage);
            return;
          }
          yield {
            type: 'finish',
            reason: 'error',
            message: `Response incomplete: ${reason ?? 'unknown reason'}.`,
          };
          return;
        }
        case 'response.failed':
          yield {
            type: 'finish',
            reason: 'error',
            message: event.response.error?.message ?? 'The provider reported the response as failed.',
          };
          return;
        case 'error':
          yield { type: 'finish', reason: 'error', message: event.message };
          return;
      }
    }
    yield finishForTruncatedStream(signal);
  } catch (error) {
    yield finishFromError(error, signal);
  }
}

/** A `ModelProvider` for the Responses API through the official `openai` SDK. */
export function createOpenAIResponsesProvider(options: OpenAIResponsesProviderOptions): ModelProvider {
  const id = options.id ?? 'openai';
  const client = createOpenAIClient(options);
  const memory = new ReasoningMemory();
  const open = async (request: ModelRequest) => {
    const include = shouldIncludeReasoning(request, options, memory);
    try {
      return await client.responses.create(buildResponsesRequest(request, options, include), {
        signal: request.signal,
      });
    } catch (error) {
      // Asked of a model not known to reason: its 400 says it does not; ask once more without.
      if (!include || memory.get(request.model) !== undefined || !isIncludeRefusal(error)) throw error;
      memory.set(request.model, false);
      return await client.responses.create(buildResponsesRequest(request, options, false), {
        signal: request.signal,
      });
    }
  };
  async function* remembering(request: ModelRequest, events: AsyncIterable<ResponseStreamEvent>) {
    for await (const event of translateResponsesStream(events, request.signal, id)) {
      if (event.type === 'provider_item' && (event.data as { type?: unknown }).type === 'reasoning') {
        memory.set(request.model, true);
      }
      yield event;
    }
  }
  return streamingProvider<ResponseStreamEvent>({ id, options, secret: options.apiKey }, (request) => ({
    open: () => open(request),
    translate: (events) => remembering(request, events),
  }));
}
