/**
 * A tiny in-memory ModelProvider for loop tests and benchmarks: it plays one scripted response per
 * request and records every `ModelRequest` it received (history copied at the time of the request).
 */

import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { ProviderId } from '../../src/contracts/provider-id.ts';
import type { ModelProvider, ModelRequest } from '../../src/providers/model-provider.ts';

/** One model response: a list of events, or a function producing them (for hangs and cut streams). */
export type ScriptStep = readonly ProviderEvent[] | ((request: ModelRequest) => AsyncIterable<ProviderEvent>);

export interface ScriptedProviderOptions {
  id?: ProviderId;
  /** Keep copies of requests (default true); benchmarks turn it off. */
  record?: boolean;
  /** Played for every request past the end of the script (default: a `finish{error}`). */
  repeat?: ScriptStep;
}

export class ScriptedProvider implements ModelProvider {
  readonly id: ProviderId;
  readonly requests: ModelRequest[] = [];
  #requestCount = 0;
  readonly #steps: readonly ScriptStep[];
  readonly #options: ScriptedProviderOptions;

  constructor(steps: readonly ScriptStep[], options: ScriptedProviderOptions = {}) {
    this.id = options.id ?? 'openai';
    this.#steps = steps;
    this.#options = options;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ProviderEvent> {
    const index = this.#requestCount;
    this.#requestCount += 1;
    if (this.#options.record !== false) {
      this.requests.push({
        ...request,
        history: structuredClone(request.history) as ModelRequest['history'],
      });
    }
    const step = this.#steps[index] ?? this.#options.repeat;
    if (step === undefined) {
      yield { type: 'finish', reason: 'error', message: `The script has no response ${index + 1}.` };
      return;
    }
    if (typeof step === 'function') {
      yield* step(request);
      return;
    }
    for (const event of step) {
      if (request.signal.aborted) {
        yield { type: 'finish', reason: 'cancelled' };
        return;
      }
      yield event;
    }
  }
}

export function textResponse(text: string): ProviderEvent[] {
  return [
    { type: 'text_delta', delta: text.slice(0, Math.ceil(text.length / 2)) },
    { type: 'text_delta', delta: text.slice(Math.ceil(text.length / 2)) },
    { type: 'finish', reason: 'stop' },
  ];
}

export interface ScriptedCall {
  id: string;
  name: string;
  /** Raw argument text, or an object to serialize. */
  arguments?: string | Record<string, unknown>;
}

/** The events of one tool call: started, its arguments in two deltas, completed. */
export function toolCallEvents(call: ScriptedCall): ProviderEvent[] {
  const text = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
  const half = Math.ceil(text.length / 2);
  return [
    { type: 'tool_call_started', callId: call.id, name: call.name },
    { type: 'tool_call_arguments_delta', callId: call.id, delta: text.slice(0, half) },
    { type: 'tool_call_arguments_delta', callId: call.id, delta: text.slice(half) },
    { type: 'tool_call_completed', callId: call.id, name: call.name, arguments: text },
  ];
}

/** A response that calls tools (optionally after some text) and finishes with `tool_calls`. */
export function toolCallsResponse(calls: readonly ScriptedCall[], text?: string): ProviderEvent[] {
  return [
    ...(text === undefined ? [] : [{ type: 'text_delta', delta: text } as const]),
    ...calls.flatMap(toolCallEvents),
    { type: 'finish', reason: 'tool_calls' },
  ];
}

/** A response that yields `events`, then hangs until the request is aborted and finishes `cancelled`. */
export function hangUntilAborted(
  events: readonly ProviderEvent[],
): (request: ModelRequest) => AsyncIterable<ProviderEvent> {
  return async function* (request) {
    yield* events;
    await new Promise<void>((resolve) => {
      if (request.signal.aborted) resolve();
      else request.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    yield { type: 'finish', reason: 'cancelled' };
  };
}

/** A response that yields `events`, then never yields again and ignores its signal. */
export function hangForever(events: readonly ProviderEvent[]): ScriptStep {
  return async function* () {
    yield* events;
    await new Promise<never>(() => {});
  };
}
