/**
 * Gemini Interactions adapter (provider id `gemini`) through `@google/genai`'s `client.interactions`
 * (SDK 3.3: `create({model, input: Step[], tools, system_instruction, stream: true, store: false})`, an
 * SSE stream of `interaction.*` and `step.start` / `step.delta` / `step.stop` events).
 *
 * Requests are stateless (`store: false`) and carry the whole history as steps: `user_input`,
 * `model_output`, `thought` steps replayed verbatim (their `signature` is what lets Gemini continue its
 * reasoning), `function_call` steps with their `arguments` object and the call's own thought `signature`
 * (kept in the call's `providerData`), and `function_result` steps paired by `call_id`.
 *
 * Stream contract (`model-provider.ts`): never throws. A `function_call` step is completed by its `step.stop`,
 * with the arguments streamed as `arguments_delta` text (or the object sent whole in `step.start`) —
 * except a call the output budget cut: the last stopped call is held until a later step starts or the
 * interaction ends with a status other than `incomplete`;
 * `interaction.completed` finishes with `tool_calls` (`requires_action`), `stop`, `length`
 * (`incomplete`) or `error` (`failed`, `cancelled`, `budget_exceeded`); a body that ends first finishes
 * with `error`, so a call cut mid-arguments is never completed.
 */
import { GoogleGenAI, type Interactions } from '@google/genai';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';
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
import { toolDefsToGeminiInteractions } from './tool-mapper.ts';

/** What this adapter keeps in a tool call's `providerData`: the call's thought signature. */
export interface GeminiCallData {
  signature: string;
}

/** The SDK's function-call step plus the `signature` field the API sends and expects back. */
type FunctionCallStepWithSignature = Interactions.FunctionCallStep & { signature?: string };

type CreateStreamingParams = Interactions.CreateModelInteractionParamsStreaming & { stream: true };

function callSignature(providerData: unknown): string | undefined {
  const signature = (providerData as Partial<GeminiCallData> | undefined)?.signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

/** The Interactions input steps for a provider-neutral history. Pure. */
export function historyToGeminiSteps(history: readonly ConversationItem[]): Interactions.Step[] {
  const steps: Interactions.Step[] = [];
  for (const item of history) {
    switch (item.type) {
      case 'user_text':
        steps.push({ type: 'user_input', content: [{ type: 'text', text: item.text }] });
        break;
      case 'assistant_text':
        // Gemini refuses an empty text part ("empty text parameter"): empty text is not replayed.
        if (item.text) steps.push({ type: 'model_output', content: [{ type: 'text', text: item.text }] });
        break;
      case 'tool_call': {
        const signature = callSignature(item.providerData);
        const step: FunctionCallStepWithSignature = {
          type: 'function_call',
          id: item.callId,
          name: item.name,
          arguments: parseArgumentsObject(item.arguments),
          ...(signature ? { signature } : {}),
        };
        steps.push(step);
        break;
      }
      case 'tool_result':
        steps.push({
          type: 'function_result',
          call_id: item.callId,
          name: item.name,
          result: item.output,
          ...(item.ok ? {} : { is_error: true }),
        });
        break;
      case 'provider_item':
        if (item.provider === 'gemini') steps.push(structuredClone(item.data) as Interactions.Step);
        break;
    }
  }
  return steps;
}

/** The streaming request body for one iteration. Pure. */
export function buildGeminiRequest(request: Omit<ModelRequest, 'signal'>): CreateStreamingParams {
  return {
    model: request.model,
    input: historyToGeminiSteps(request.history),
    ...(request.systemPrompt ? { system_instruction: request.systemPrompt } : {}),
    ...(request.tools.length > 0 ? { tools: toolDefsToGeminiInteractions(request.tools) } : {}),
    stream: true,
    store: false,
  };
}

type OpenStep =
  | {
      kind: 'call';
      callId: string;
      name: string;
      argumentsText: string;
      startArguments: unknown;
      signature: string;
    }
  | { kind: 'thought'; step: Record<string, unknown> }
  | { kind: 'other' };

function usageOf(usage: Interactions.Usage | undefined): TokenUsage | undefined {
  return makeUsage(usage?.total_input_tokens, usage?.total_output_tokens);
}

function startArgumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && Object.keys(value).length > 0) return JSON.stringify(value);
  return '';
}

/** Translates an Interactions event stream into `ProviderEvent`s. Never throws. */
export async function* translateGeminiStream(
  events: AsyncIterable<Interactions.InteractionSSEEvent>,
  signal: AbortSignal,
): AsyncGenerator<ProviderEvent> {
  const open = new Map<number, OpenStep>();
  const calls = new HeldCallCompletion();
  try {
    for await (const event of events) {
      switch (event.event_type) {
        case 'step.start': {
          yield* calls.release();
          const step = event.step;
          if (step.type === 'function_call') {
            const withSignature = step as FunctionCallStepWithSignature;
            open.set(event.index, {
              kind: 'call',
              callId: step.id,
              name: step.name,
              argumentsText: '',
              startArguments: step.arguments,
              signature: withSignature.signature ?? '',
            });
            yield { type: 'tool_call_started', callId: step.id, name: step.name };
          } else if (step.type === 'thought') {
            open.set(event.index, { kind: 'thought', step: { ...step } });
          } else {
            open.set(event.index, { kind: 'other' });
            if (step.type === 'model_output') {
              for (const content of step.content ?? []) {
                if (content.type === 'text' && content.text)
                  yield { type: 'text_delta', delta: content.text };
              }
            }
          }
          break;
        }
        case 'step.delta': {
          const step = open.get(event.index);
          const delta = event.delta;
          if (delta.type === 'text') {
            if (delta.text) yield { type: 'text_delta', delta: delta.text };
          } else if (delta.type === 'arguments_delta' && step?.kind === 'call') {
            if (delta.arguments) {
              step.argumentsText += delta.arguments;
              yield { type: 'tool_call_arguments_delta', callId: step.callId, delta: delta.arguments };
            }
          } else if (delta.type === 'thought_signature' && delta.signature) {
            if (step?.kind === 'thought')
              step.step.signature = `${String(step.step.signature ?? '')}${delta.signature}`;
            if (step?.kind === 'call') step.signature += delta.signature;
          }
          break;
        }
        case 'step.stop': {
          const step = open.get(event.index);
          open.delete(event.index);
          if (step?.kind === 'call') {
            const argumentsText = step.argumentsText || startArgumentsText(step.startArguments);
            calls.hold({
              type: 'tool_call_completed',
              callId: step.callId,
              name: step.name,
              arguments: normalizeToolArguments(argumentsText),
              ...(step.signature
                ? { providerData: { signature: step.signature } satisfies GeminiCallData }
                : {}),
            });
          } else if (step?.kind === 'thought' && step.step.signature) {
            yield { type: 'provider_item', provider: 'gemini', data: step.step };
          }
          break;
        }
        case 'interaction.completed': {
          const status = event.interaction.status;
          const usage = usageOf(event.interaction.usage);
          if (status === 'requires_continuation') break;
          if (status === 'incomplete') calls.discard();
          else yield* calls.release();
          if (status === 'requires_action' || status === 'completed') {
            yield finishWithReason(
              status === 'requires_action' || calls.released > 0 ? 'tool_calls' : 'stop',
              usage,
            );
          } else if (status === 'incomplete') {
            yield finishWithReason('length', usage);
          } else {
            yield {
              type: 'finish',
              reason: 'error',
              message: `The interaction ended with status "${status}".`,
            };
          }
          return;
        }
        case 'error':
          yield {
            type: 'finish',
            reason: 'error',
            message: event.error?.message ?? 'The provider reported an error.',
          };
          return;
      }
    }
    yield finishForTruncatedStream(signal);
  } catch (error) {
    yield finishFromError(error, signal);
  }
}

/** A `ModelProvider` for the Gemini Interactions API through the official `@google/genai` SDK. */
export function createGeminiInteractionsProvider(options: ProviderClientOptions): ModelProvider {
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: { baseUrl: options.baseURL, fetch: watchedFetch() },
  });
  return streamingProvider<Interactions.InteractionSSEEvent>(
    { id: 'gemini', options, secret: options.apiKey },
    (request) => ({
      open: () =>
        client.interactions.create(buildGeminiRequest(request), {
          timeout_ms: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
          retries: { strategy: 'none' },
          fetch_options: { signal: request.signal },
        }),
      translate: (events) => translateGeminiStream(events, request.signal),
    }),
  );
}
