/**
 * Gemini `generateContent` adapter (provider id `gemini-generate-content`) through `@google/genai`'s
 * `models.generateContentStream` (`streamGenerateContent?alt=sse`), for the Gemini API (AI Studio, an
 * API key) and Vertex AI (a project, a location and Google credentials).
 *
 * Requests carry the whole history as `contents`: user text, the model's parts as it produced them —
 * text, `functionCall` parts with their `args` object and their `thoughtSignature` (kept in the call's
 * `providerData`; Gemini refuses a continued tool loop without it), thought parts that carried a
 * signature (replayed from `provider_item`s) — and the results as `functionResponse` parts
 * (`{output}` or `{error}`), all results of one response in one user content. Tool schemas go through
 * the Gemini schema sanitizer.
 *
 * Stream contract (`model-provider.ts`): never throws. A `functionCall` part without `willContinue` is a whole
 * call; one with `willContinue` opens a call whose arguments stream as `partialArgs` until an empty
 * `functionCall: {}` closes it. A closed call is held until the next part starts or the finish reason
 * shows the output limit did not cut it. `STOP` finishes with `tool_calls` when calls were released
 * (Gemini says `STOP` either way), `MAX_TOKENS` with `length`, the safety reasons and a blocked prompt
 * with `content_filter`, every other reason with `error`; a body that ends without a finish reason
 * finishes with `error`, so a call cut mid-arguments is never completed.
 */
import {
  type Content,
  type FunctionDeclaration,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  type GoogleGenAIOptions,
  type Part,
} from '@google/genai';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderEvent, TokenUsage } from '../contracts/provider-event.ts';
import { finishForTruncatedStream, finishFromError, finishWithReason, makeUsage } from './finish-events.ts';
import { PartialArguments } from './gemini-partial-args.ts';
import { toGeminiSchema } from './gemini-schema.ts';
import { HeldCallCompletion } from './held-call-completion.ts';
import type { ModelProvider, ModelRequest } from './model-provider.ts';
import { normalizeToolArguments, parseArgumentsObject } from './normalize-tool-arguments.ts';
import { watchedFetch } from './stream-watch.ts';
import {
  DEFAULT_PROVIDER_TIMEOUT_MS,
  type ProviderClientOptions,
  streamingProvider,
} from './streaming-provider.ts';

const PROVIDER = 'gemini-generate-content';

/** Vertex AI instead of the Gemini API: requests go to the project's location with OAuth credentials. */
export interface VertexOptions {
  project: string;
  location: string;
  /** How to obtain the access token (default: Application Default Credentials). */
  googleAuthOptions?: GoogleGenAIOptions['googleAuthOptions'];
}

export interface GeminiGenerateContentProviderOptions extends ProviderClientOptions {
  vertex?: VertexOptions;
  /** Makes an id for a call Gemini sent without one (default: `call_` + random hex). */
  createCallId?: () => string;
  /** Ask Vertex to stream function-call arguments (`streamFunctionCallArguments`; Gemini 3 models). */
  streamFunctionCallArguments?: boolean;
}

/** What this adapter keeps in a tool call's `providerData`. */
export interface GeminiGenerateContentCallData {
  thoughtSignature?: string;
  /** The id Gemini gave the call, sent back on the call and its response (absent: Gemini gave none). */
  id?: string;
}

function callData(providerData: unknown): GeminiGenerateContentCallData {
  const data = (providerData ?? {}) as GeminiGenerateContentCallData;
  return {
    ...(typeof data.thoughtSignature === 'string' && data.thoughtSignature
      ? { thoughtSignature: data.thoughtSignature }
      : {}),
    ...(typeof data.id === 'string' && data.id ? { id: data.id } : {}),
  };
}

/** The `contents` for a provider-neutral history. Pure. */
export function historyToGeminiContents(history: readonly ConversationItem[]): Content[] {
  const contents: Content[] = [];
  const serverIds = new Map<string, string | undefined>();
  const partsFor = (role: 'user' | 'model'): Part[] => {
    const last = contents[contents.length - 1];
    if (last?.role === role && last.parts) return last.parts;
    const content: Content = { role, parts: [] };
    contents.push(content);
    return content.parts!;
  };
  for (const item of history) {
    switch (item.type) {
      case 'user_text':
        partsFor('user').push({ text: item.text });
        break;
      case 'assistant_text':
        // Gemini refuses an empty text part: empty text is not replayed.
        if (item.text) partsFor('model').push({ text: item.text });
        break;
      case 'tool_call': {
        const data = callData(item.providerData);
        serverIds.set(item.callId, data.id);
        partsFor('model').push({
          functionCall: {
            ...(data.id ? { id: data.id } : {}),
            name: item.name,
            args: parseArgumentsObject(item.arguments),
          },
          ...(data.thoughtSignature ? { thoughtSignature: data.thoughtSignature } : {}),
        });
        break;
      }
      case 'tool_result': {
        const id = serverIds.get(item.callId);
        partsFor('user').push({
          functionResponse: {
            ...(id ? { id } : {}),
            name: item.name,
            response: item.ok ? { output: item.output } : { error: item.output },
          },
        });
        break;
      }
      case 'provider_item':
        if (item.provider === PROVIDER) partsFor('model').push(structuredClone(item.data) as Part);
        break;
    }
  }
  return contents;
}

/** The streaming request for one iteration (without the abort signal). Pure. */
export function buildGeminiGenerateContentRequest(
  request: Omit<ModelRequest, 'signal'>,
  options: Pick<GeminiGenerateContentProviderOptions, 'streamFunctionCallArguments'> = {},
): GenerateContentParameters {
  const declarations: FunctionDeclaration[] = request.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: toGeminiSchema(tool.parameters) as FunctionDeclaration['parameters'],
  }));
  return {
    model: request.model,
    contents: historyToGeminiContents(request.history),
    config: {
      ...(request.systemPrompt ? { systemInstruction: request.systemPrompt } : {}),
      ...(declarations.length > 0 ? { tools: [{ functionDeclarations: declarations }] } : {}),
      ...(declarations.length > 0 && options.streamFunctionCallArguments
        ? { toolConfig: { functionCallingConfig: { streamFunctionCallArguments: true } } }
        : {}),
    },
  };
}

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

interface OpenCall {
  callId: string;
  name: string;
  serverId: string | undefined;
  signature: string | undefined;
  partial: PartialArguments;
}

function usageOf(response: GenerateContentResponse): TokenUsage | undefined {
  const metadata = response.usageMetadata;
  if (!metadata) return undefined;
  const output =
    typeof metadata.candidatesTokenCount === 'number' || typeof metadata.thoughtsTokenCount === 'number'
      ? (metadata.candidatesTokenCount ?? 0) + (metadata.thoughtsTokenCount ?? 0)
      : undefined;
  return makeUsage(metadata.promptTokenCount, output);
}

function defaultCallId(): string {
  return `call_${crypto.randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** Translates a `streamGenerateContent` response stream into `ProviderEvent`s. Never throws. */
export async function* translateGeminiGenerateContentStream(
  responses: AsyncIterable<GenerateContentResponse>,
  signal: AbortSignal,
  options: { createCallId?: () => string } = {},
): AsyncGenerator<ProviderEvent> {
  const createCallId = options.createCallId ?? defaultCallId;
  const calls = new HeldCallCompletion();
  let open: OpenCall | undefined;
  let usage: TokenUsage | undefined;

  function* start(call: OpenCall): Generator<ProviderEvent> {
    yield* calls.release();
    open = call;
    yield { type: 'tool_call_started', callId: call.callId, name: call.name };
  }
  function* close(call: OpenCall, args: Record<string, unknown>): Generator<ProviderEvent> {
    open = undefined;
    const argumentsText = call.partial.problem ?? (Object.keys(args).length > 0 ? JSON.stringify(args) : '');
    if (argumentsText) yield { type: 'tool_call_arguments_delta', callId: call.callId, delta: argumentsText };
    const data: GeminiGenerateContentCallData = {
      ...(call.signature ? { thoughtSignature: call.signature } : {}),
      ...(call.serverId ? { id: call.serverId } : {}),
    };
    calls.hold({
      type: 'tool_call_completed',
      callId: call.callId,
      name: call.name,
      arguments: normalizeToolArguments(argumentsText),
      ...(Object.keys(data).length > 0 ? { providerData: data } : {}),
    });
  }

  try {
    for await (const response of responses) {
      usage = usageOf(response) ?? usage;
      const candidate = response.candidates?.[0];
      for (const part of candidate?.content?.parts ?? []) {
        const functionCall = part.functionCall;
        if (functionCall) {
          if (functionCall.name) {
            const call: OpenCall = {
              callId: functionCall.id || createCallId(),
              name: functionCall.name,
              serverId: functionCall.id || undefined,
              signature: part.thoughtSignature,
              partial: new PartialArguments(),
            };
            yield* start(call);
            for (const piece of functionCall.partialArgs ?? []) call.partial.apply(piece);
            if (!functionCall.willContinue)
              yield* close(call, { ...call.partial.args, ...functionCall.args });
          } else if (open) {
            for (const piece of functionCall.partialArgs ?? []) open.partial.apply(piece);
            if (part.thoughtSignature) open.signature ??= part.thoughtSignature;
            // An empty `functionCall: {}` (or a last piece without `willContinue`) closes the call.
            if (!functionCall.willContinue) yield* close(open, open.partial.args);
          }
          continue;
        }
        if (part.thought) {
          yield* calls.release();
          if (part.thoughtSignature) yield { type: 'provider_item', provider: PROVIDER, data: { ...part } };
          continue;
        }
        if (typeof part.text === 'string' && part.text !== '') {
          yield* calls.release();
          yield { type: 'text_delta', delta: part.text };
        }
      }
      const blocked = response.promptFeedback?.blockReason;
      if (blocked && !candidate) {
        yield finishWithReason('content_filter', usage, `prompt blocked: ${blocked}`);
        return;
      }
      const reason = candidate?.finishReason;
      if (!reason) continue;
      if (reason === 'MAX_TOKENS') {
        calls.discard();
        yield finishWithReason('length', usage);
        return;
      }
      if (open) {
        yield {
          type: 'finish',
          reason: 'error',
          message: `The model stopped (${reason}) in the middle of a call.`,
        };
        return;
      }
      if (reason === 'STOP') {
        yield* calls.release();
        yield finishWithReason(calls.released > 0 ? 'tool_calls' : 'stop', usage);
      } else if (CONTENT_FILTER_REASONS.has(reason)) {
        calls.discard();
        yield finishWithReason('content_filter', usage, reason);
      } else {
        const detail = candidate.finishMessage ? `: ${candidate.finishMessage}` : '.';
        yield {
          type: 'finish',
          reason: 'error',
          message: `The model stopped with finish reason ${reason}${detail}`,
        };
      }
      return;
    }
    yield finishForTruncatedStream(signal, usage);
  } catch (error) {
    yield finishFromError(error, signal, usage);
  }
}

/** A `ModelProvider` for Gemini `generateContent` through the official `@google/genai` SDK. */
export function createGeminiGenerateContentProvider(
  options: GeminiGenerateContentProviderOptions,
): ModelProvider {
  const httpOptions = {
    baseUrl: options.baseURL,
    timeout: options.timeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS,
    fetch: watchedFetch(),
  };
  const client = options.vertex
    ? new GoogleGenAI({
        vertexai: true,
        project: options.vertex.project,
        location: options.vertex.location,
        ...(options.vertex.googleAuthOptions ? { googleAuthOptions: options.vertex.googleAuthOptions } : {}),
        httpOptions,
      })
    : new GoogleGenAI({ apiKey: options.apiKey, httpOptions });
  // Vertex AI authenticates with Google credentials, not the API key: there is no key to redact.
  return streamingProvider<GenerateContentResponse>(
    { id: PROVIDER, options, secret: options.vertex ? undefined : options.apiKey },
    (request) => {
      const parameters = buildGeminiGenerateContentRequest(request, options);
      return {
        open: () =>
          client.models.generateContentStream({
            ...parameters,
            config: { ...parameters.config, abortSignal: request.signal },
          }),
        translate: (events) =>
          translateGeminiGenerateContentStream(events, request.signal, {
            ...(options.createCallId ? { createCallId: options.createCallId } : {}),
          }),
      };
    },
  );
}
