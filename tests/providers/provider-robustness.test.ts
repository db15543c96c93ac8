/**
 * What real servers and networks do to a stream, for every adapter (the contract
 * of `model-provider.ts`: a stream never throws and always ends with exactly one `finish`).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { PROVIDER_IDS, type ProviderId } from '../../src/contracts/provider-id.ts';
import { translateGeminiStream } from '../../src/providers/gemini-interactions-provider.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import { translateChatStream } from '../../src/providers/openai-chat-provider.ts';
import { translateResponsesStream } from '../../src/providers/openai-responses-provider.ts';
import { type ReplayStep, startReplayServer } from '../helpers/replay-server.ts';
import {
  anthropicBody,
  chatBody,
  geminiBody,
  responsesBody,
  type ScriptedTurn,
} from '../helpers/scripted-provider-streams.ts';
import { CONFORMANCE_ADAPTERS } from './conformance/conformance-adapters.ts';
import { geminiGenerateContentWire } from './conformance/wire-formats.ts';
import { collect, makeRequest, mergeDeltas } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

interface Adapter {
  name: string;
  create: (baseUrl: string) => ModelProvider;
  body: (turn: ScriptedTurn) => string;
  /**
   * Why the cases about a call's argument text (cut inside it, invalid JSON passed on raw) do not apply,
   * when its wire carries each call whole.
   */
  wholeCalls?: string;
}

/** The generateContent body of a scripted turn, through the conformance kit's wire format. */
function generateContentBody(turn: ScriptedTurn): string {
  const ending = turn.cutInLastCall ? 'cut' : turn.calls?.length ? 'tool_calls' : 'stop';
  const body = geminiGenerateContentWire({ ...turn, ending });
  if (typeof body !== 'string') throw new Error(body.unsupported);
  return body;
}

/** Each adapter's scripted body; keyed by id, so an adapter added to the list needs its line here. */
const BODIES: { readonly [id in ProviderId]: Omit<Adapter, 'name' | 'create'> } = {
  openai: { body: (turn) => responsesBody(turn) },
  'openai-compatible': { body: (turn) => chatBody(turn) },
  anthropic: { body: (turn) => anthropicBody(turn) },
  gemini: { body: (turn) => geminiBody(turn) },
  'gemini-generate-content': {
    body: generateContentBody,
    wholeCalls:
      'generateContent sends each call whole, its arguments as parsed JSON (Vertex AI streams them as ' +
      'JSON paths): a cut inside the text of the arguments and raw invalid JSON cannot occur on its wire.',
  },
};

const adapters: Adapter[] = CONFORMANCE_ADAPTERS.map((adapter) => ({
  name: `${adapter.id} (${adapter.api})`,
  create: (baseUrl) => adapter.create(baseUrl, { apiKey: 'k' }),
  ...BODIES[adapter.id],
}));

test('every adapter of the list is here, with its body', () => {
  expect(adapters.map((adapter) => adapter.name.split(' ')[0])).toEqual([...PROVIDER_IDS]);
  expect(Object.keys(BODIES).sort()).toEqual([...PROVIDER_IDS].sort());
});

const CUT_TURN: ScriptedTurn = {
  text: 'Hi',
  calls: [
    { id: 'call_done', name: 'get_weather', fragments: ['{"location":"Rome"}'] },
    { id: 'call_cut', name: 'get_weather', fragments: ['{"loca'] },
  ],
  cutInLastCall: true,
};

async function run(
  adapter: Adapter,
  step: Omit<ReplayStep, 'body'> & { body?: string },
  signal?: AbortSignal,
) {
  server.enqueue({ body: '', ...step });
  const provider = adapter.create(server.baseUrl);
  return collect(provider.stream(makeRequest(signal ? { signal } : {})));
}

function expectOneFinishLast(events: readonly ProviderEvent[]) {
  expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
  expect(events[events.length - 1]?.type).toBe('finish');
}

describe.each(adapters)('$name', (adapter) => {
  const cutPrefix = (events: readonly ProviderEvent[]) =>
    mergeDeltas(events.filter((event) => event.type !== 'provider_item' && event.type !== 'finish'));

  // On a wire that carries calls whole, these cases cannot be built: `wholeCalls` says why.
  if (adapter.wholeCalls === undefined) {
    test('a connection cut mid-call ends with error and never completes the cut call', async () => {
      const events = await run(adapter, { body: adapter.body(CUT_TURN), ending: 'reset' });
      expectOneFinishLast(events);
      expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'error' });
      // A transport failure, not a clean end: the message is the connection error's.
      expect(events.at(-1)).not.toMatchObject({
        message: 'The provider stream ended before the response was complete.',
      });
      expect(
        events.some((event) => event.type === 'tool_call_completed' && event.callId === 'call_cut'),
      ).toBe(false);
      expect(cutPrefix(events).filter((event) => event.type !== 'tool_call_completed')).toEqual([
        { type: 'text_delta', delta: 'Hi' },
        { type: 'tool_call_started', callId: 'call_done', name: 'get_weather' },
        { type: 'tool_call_arguments_delta', callId: 'call_done', delta: '{"location":"Rome"}' },
        { type: 'tool_call_started', callId: 'call_cut', name: 'get_weather' },
        { type: 'tool_call_arguments_delta', callId: 'call_cut', delta: '{"loca' },
      ]);
    });

    test('a body that ends mid-call ends with error and never completes the cut call', async () => {
      const events = await run(adapter, { body: adapter.body(CUT_TURN) });
      expectOneFinishLast(events);
      expect(events.at(-1)).toMatchObject({
        type: 'finish',
        reason: 'error',
        message: 'The provider stream ended before the response was complete.',
      });
      expect(
        events.some((event) => event.type === 'tool_call_completed' && event.callId === 'call_cut'),
      ).toBe(false);
    });

    test('invalid JSON arguments are passed through raw for the loop to reject', async () => {
      const events = await run(adapter, {
        body: adapter.body({
          calls: [{ id: 'call_bad', name: 'get_weather', fragments: ['{"location": Paris}'] }],
        }),
      });
      expect(events.filter((event) => event.type === 'tool_call_completed')).toEqual([
        expect.objectContaining({
          type: 'tool_call_completed',
          callId: 'call_bad',
          name: 'get_weather',
          arguments: '{"location": Paris}',
        }),
      ]);
      expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    });
  }

  test('an HTTP error status ends the stream with error and the status, without throwing', async () => {
    const events = await run(adapter, {
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ error: { type: 'api_error', message: 'upstream exploded' } }),
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'finish', reason: 'error' });
    expect((events[0] as { message: string }).message).toContain('500');
  });

  test('an unreachable server ends the stream with error, without throwing', async () => {
    const closed = startReplayServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const events = await collect(adapter.create(baseUrl).stream(makeRequest()));
    expect(events).toEqual([expect.objectContaining({ type: 'finish', reason: 'error' })]);
  });

  test('an abort mid-stream ends it with cancelled promptly', async () => {
    const controller = new AbortController();
    server.enqueue({
      body: adapter.body({
        text: 'Hi',
        calls: [{ id: 'call_1', name: 'get_weather', fragments: ['{'] }],
        cutInLastCall: true,
      }),
      ending: 'hang',
    });
    const events: ProviderEvent[] = [];
    const startedAt = performance.now();
    for await (const event of adapter
      .create(server.baseUrl)
      .stream(makeRequest({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expect(performance.now() - startedAt).toBeLessThan(5000);
    expectOneFinishLast(events);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'cancelled' });
    expect(events.some((event) => event.type === 'tool_call_completed')).toBe(false);
  });

  test('an already-aborted request ends with cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(
      adapter.create(server.baseUrl).stream(makeRequest({ signal: controller.signal })),
    );
    expect(events).toEqual([{ type: 'finish', reason: 'cancelled' }]);
  });
});

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

const signal = new AbortController().signal;
const chunk = (delta: unknown, finishReason: string | null = null) =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  }) as never;

describe('Chat Completions chunk shapes', () => {
  type Case = [label: string, chunks: unknown[], expected: ProviderEvent[]];
  const cases: Case[] = [
    [
      'an index reused with a new id is a new call',
      [
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'b', function: { name: 'g', arguments: '{"x":1}' } }] }),
        chunk({}, 'tool_calls'),
      ],
      [
        { type: 'tool_call_started', callId: 'a', name: 'f' },
        { type: 'tool_call_arguments_delta', callId: 'a', delta: '{}' },
        { type: 'tool_call_started', callId: 'b', name: 'g' },
        { type: 'tool_call_arguments_delta', callId: 'b', delta: '{"x":1}' },
        { type: 'tool_call_completed', callId: 'a', name: 'f', arguments: '{}' },
        { type: 'tool_call_completed', callId: 'b', name: 'g', arguments: '{"x":1}' },
        { type: 'finish', reason: 'tool_calls' },
      ],
    ],
    [
      'arguments before the name are held until the name arrives; a call without id gets one',
      [
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: '1}' } }] }),
        chunk({}, 'stop'),
      ],
      [
        { type: 'tool_call_started', callId: 'generated-1', name: 'f' },
        { type: 'tool_call_arguments_delta', callId: 'generated-1', delta: '{"a":1}' },
        { type: 'tool_call_completed', callId: 'generated-1', name: 'f', arguments: '{"a":1}' },
        { type: 'finish', reason: 'tool_calls' },
      ],
    ],
    [
      'finish_reason length leaves a pending call uncompleted',
      [
        chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{"a":' } }] }),
        chunk({}, 'length'),
      ],
      [
        { type: 'tool_call_started', callId: 'a', name: 'f' },
        { type: 'tool_call_arguments_delta', callId: 'a', delta: '{"a":' },
        { type: 'finish', reason: 'length' },
      ],
    ],
    [
      'a content filter stop finishes with content_filter',
      [chunk({ content: 'x' }), chunk({}, 'content_filter')],
      [
        { type: 'text_delta', delta: 'x' },
        {
          type: 'finish',
          reason: 'content_filter',
          message: "The provider's content filter stopped the answer.",
        },
      ],
    ],
  ];
  test.each(cases)('%s', async (_label, chunks, expected) => {
    let generated = 0;
    const events = await collect(
      translateChatStream(fromArray(chunks as never[]), signal, {
        createCallId: () => `generated-${++generated}`,
      }),
    );
    expect(events).toEqual(expected);
  });
});

describe('terminal events', () => {
  test('Responses: failed, incomplete by output budget, and an error event', async () => {
    const run = (event: unknown) => collect(translateResponsesStream(fromArray([event as never]), signal));
    expect(await run({ type: 'response.failed', response: { error: { message: 'boom' } } })).toEqual([
      { type: 'finish', reason: 'error', message: 'boom' },
    ]);
    expect(
      await run({
        type: 'response.incomplete',
        response: { incomplete_details: { reason: 'max_output_tokens' } },
      }),
    ).toEqual([{ type: 'finish', reason: 'length' }]);
    expect(await run({ type: 'error', message: 'rate limited' })).toEqual([
      { type: 'finish', reason: 'error', message: 'rate limited' },
    ]);
  });

  test('Responses: a call the output budget cut (its item done as incomplete) is never completed', async () => {
    const events = await collect(
      translateResponsesStream(
        fromArray([
          {
            type: 'response.output_item.added',
            output_index: 0,
            item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'f', arguments: '' },
          },
          {
            type: 'response.function_call_arguments.delta',
            item_id: 'fc_1',
            output_index: 0,
            delta: '{"a":',
          },
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: {
              type: 'function_call',
              id: 'fc_1',
              call_id: 'call_1',
              name: 'f',
              arguments: '{"a":',
              status: 'incomplete',
            },
          },
          {
            type: 'response.incomplete',
            response: { incomplete_details: { reason: 'max_output_tokens' } },
          },
        ] as never[]),
        signal,
      ),
    );
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'call_1', name: 'f' },
      { type: 'tool_call_arguments_delta', callId: 'call_1', delta: '{"a":' },
      { type: 'finish', reason: 'length' },
    ]);
  });

  test('Gemini: a failed interaction and an error event', async () => {
    const run = (event: unknown) => collect(translateGeminiStream(fromArray([event as never]), signal));
    expect(
      await run({ event_type: 'interaction.completed', interaction: { id: 'i', status: 'failed' } }),
    ).toEqual([{ type: 'finish', reason: 'error', message: 'The interaction ended with status "failed".' }]);
    expect(await run({ event_type: 'error', error: { message: 'quota' } })).toEqual([
      { type: 'finish', reason: 'error', message: 'quota' },
    ]);
  });
});
