/**
 * OpenAI Responses adapter (provider id `openai`; also any server that speaks `/v1/responses`, such as
 * LM Studio). Requests are stateless (`store: false`): each one carries the whole history as input items —
 * `function_call` + `function_call_output` paired by `call_id`, and every server-side item the model
 * produced (reasoning with its `encrypted_content`, tool-search calls…) replayed verbatim from the
 * `provider_item` events this adapter emitted, since reasoning models need them to continue a tool loop.
 *
 * Stream contract (`types.ts`): never throws; a call is completed only by its `output_item.done` (and not
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
import { createOpenAIClient } from './openai-client.ts';
import {
  finishForTruncatedStream,
  finishFromError,
  makeUsage,
  normalizeToolArguments,
  openAndTranslate,
  type ProviderClientOptions,
  streamPolicyOf,
} from './stream-support.ts';
import { toolDefsToResponsesAPI } from './tool-mapper.ts';
import type { ConversationItem, ModelProvider, ModelRequest, ProviderEvent, ProviderId } from './types.ts';

export interface OpenAIResponsesProviderOptions extends ProviderClientOptions {
  /** Provider id this instance reports and whose `provider_item`s it replays (default `openai`). */
  id?: ProviderId;
  /**
   * Whether to ask for `reasoning.encrypted_content` (needed to replay reasoning statelessly). Models
   * without reasoning refuse the option, so the default asks only for o-series, gpt-5 and codex models.
   */
  includeEncryptedReasoning?: (model: string) => boolean;
}

const REASONING_MODEL = /^(o\d|gpt-5|.*codex)/i;

/** The Responses input items for a provider-neutral history. Pure. */
export function historyToResponsesInput(
  history: readonly ConversationItem[],
  providerId: ProviderId = 'openai',
): ResponseInputItem[] {
  const input: ResponseInputItem[] = [];
  for (const item of history) {
    switch (item.type) {
      case 'user_text':
        input.push({ role: 'user', content: item.text });
        break;
      case 'assistant_text':
        // Empty text carries nothing and an empty message can be refused: it is not replayed.
        if (item.text) input.push({ role: 'assistant', content: item.text });
        break;
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
        if (item.provider === providerId) input.push(structuredClone(item.data) as ResponseInputItem);
        break;
    }
  }
  return input;
}

/** The streaming request body for one iteration. Pure. */
export function buildResponsesRequest(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<OpenAIResponsesProviderOptions, 'id' | 'includeEncryptedReasoning'> = {},
): ResponseCreateParamsStreaming {
  const includeReasoning = (options.includeEncryptedReasoning ?? ((model) => REASONING_MODEL.test(model)))(
    request.model,
  );
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
  try {
    for await (const event of events) {
      switch (event.type) {
        case 'response.output_text.delta':
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
          } else if (item.type !== 'message') {
            yield { type: 'provider_item', provider: providerId, data: item };
          }
          break;
        }
        case 'response.completed': {
          const usage = makeUsage(event.response.usage?.input_tokens, event.response.usage?.output_tokens);
          yield {
            type: 'finish',
            reason: completedCalls > 0 ? 'tool_calls' : 'stop',
            ...(usage ? { usage } : {}),
          };
          return;
        }
        case 'response.incomplete': {
          const reason = event.response.incomplete_details?.reason;
          const usage = makeUsage(event.response.usage?.input_tokens, event.response.usage?.output_tokens);
          yield reason === 'max_output_tokens'
            ? { type: 'finish', reason: 'length', ...(usage ? { usage } : {}) }
            : {
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
  const policy = streamPolicyOf(options);
  return {
    id,
    stream(request: ModelRequest): AsyncGenerator<ProviderEvent> {
      return openAndTranslate<ResponseStreamEvent>({
        signal: request.signal,
        open: () =>
          client.responses.create(buildResponsesRequest(request, options), { signal: request.signal }),
        translate: (events) => translateResponsesStream(events, request.signal, id),
        policy,
        secret: options.apiKey,
      });
    },
  };
}
