/**
 * Every recorded transcript in `__fixtures__/provider-streams/` (see its README) replayed through the
 * official SDK of its API and the matching adapter, compared with the exact `ProviderEvent` sequence.
 * Adjacent text and argument fragments are merged for readability (`mergeDeltas`); the fragment counts are
 * asserted separately where a file's point is how the arguments were split.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { createAnthropicMessagesProvider } from '../../src/providers/anthropic-messages-provider.ts';
import { createGeminiInteractionsProvider } from '../../src/providers/gemini-interactions-provider.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses-provider.ts';
import {
  readProviderFixture,
  splitJsonlStreams,
  sseFromJsonl,
  startReplayServer,
} from '../helpers/replay-server.ts';
import { collect, countOf, makeRequest, mergeDeltas } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

type Api = 'responses' | 'chat' | 'anthropic' | 'gemini';

function providerFor(api: Api): ModelProvider {
  const common = { apiKey: 'test-key', maxRetries: 0 };
  switch (api) {
    case 'responses':
      return createOpenAIResponsesProvider({ ...common, baseURL: `${server.baseUrl}/v1` });
    case 'chat':
      return createOpenAIChatProvider({ ...common, baseURL: `${server.baseUrl}/v1` });
    case 'anthropic':
      return createAnthropicMessagesProvider({ ...common, baseURL: server.baseUrl });
    case 'gemini':
      return createGeminiInteractionsProvider({ ...common, baseURL: server.baseUrl });
  }
}

/** The SSE bodies of a fixture, served as its README's "Replaying" section says. */
function bodiesFor(file: string, api: Api): string[] {
  const raw = readProviderFixture(file);
  if (file.endsWith('.sse')) return [raw];
  switch (api) {
    case 'responses':
      return splitJsonlStreams(raw, 'response.created').map((part) =>
        sseFromJsonl(part, { eventName: 'type' }),
      );
    case 'chat':
      return [sseFromJsonl(raw, { done: true })];
    case 'anthropic':
      return [sseFromJsonl(raw, { eventName: 'type' })];
    case 'gemini':
      return [sseFromJsonl(raw)];
  }
}

async function replay(file: string, api: Api): Promise<ProviderEvent[][]> {
  const provider = providerFor(api);
  const results: ProviderEvent[][] = [];
  for (const body of bodiesFor(file, api)) {
    server.enqueue({ body });
    results.push(await collect(provider.stream(makeRequest())));
  }
  expect(server.failures).toEqual([]);
  return results;
}

/** The `item` of the `response.output_item.done` line for `itemId` in a Responses fixture. */
function responsesItem(file: string, itemId: string): unknown {
  for (const line of readProviderFixture(file).split('\n')) {
    if (!line.trim()) continue;
    const event = JSON.parse(line) as { type: string; item?: { id?: string } };
    if (event.type === 'response.output_item.done' && event.item?.id === itemId) return event.item;
  }
  throw new Error(`no output_item.done for ${itemId} in ${file}`);
}

const started = (callId: string, name: string): ProviderEvent => ({
  type: 'tool_call_started',
  callId,
  name,
});
const argumentsDelta = (callId: string, delta: string): ProviderEvent => ({
  type: 'tool_call_arguments_delta',
  callId,
  delta,
});
const completed = (callId: string, name: string, args: string): ProviderEvent => ({
  type: 'tool_call_completed',
  callId,
  name,
  arguments: args,
});
const text = (delta: string): ProviderEvent => ({ type: 'text_delta', delta });

/** A call whose arguments stream as one merged delta and complete with the same text. */
const call = (callId: string, name: string, args: string): ProviderEvent[] => [
  started(callId, name),
  argumentsDelta(callId, args),
  completed(callId, name, args),
];

describe('OpenAI Responses fixtures', () => {
  test('azure gpt-5.1: one call whose arguments arrive in 6 obfuscated deltas', async () => {
    const [events] = await replay('openai-responses.single-call.azure-gpt-5.1.jsonl', 'responses');
    expect(countOf(events!, 'tool_call_arguments_delta')).toBe(6);
    expect(mergeDeltas(events!)).toEqual([
      ...call('call_H5DxLSFnsGhiROnUiDHmgyc8', 'weather', '{"location":"San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 45, outputTokens: 24 } },
    ]);
  });

  test('gpt-5.4: server-side tool search items are kept for replay, then the call at output_index 2', async () => {
    const file = 'openai-responses.call-after-tool-search.gpt-5.4.jsonl';
    const [events] = await replay(file, 'responses');
    expect(countOf(events!, 'tool_call_arguments_delta')).toBe(13);
    expect(mergeDeltas(events!)).toEqual([
      {
        type: 'provider_item',
        provider: 'openai',
        data: responsesItem(file, 'tsc_08a14073c7135dc10069aa686296c88190bff77ad137e79d59'),
      },
      {
        type: 'provider_item',
        provider: 'openai',
        data: responsesItem(file, 'tso_08a14073c7135dc10069aa6862b1248190ba40cbba918ecfa2'),
      },
      ...call(
        'call_pddfxhfOx4gY56zn4vIIEbFp',
        'get_weather',
        '{"location":"San Francisco, CA","unit":"fahrenheit"}',
      ),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 640, outputTokens: 46 } },
    ]);
  });

  test('gpt-5.1-codex-max: the four streams of one tool loop', async () => {
    const file = 'openai-responses.reasoning-then-call.4-step-loop.gpt-5.1-codex-max.jsonl';
    const streams = await replay(file, 'responses');
    expect(streams.map(mergeDeltas)).toEqual([
      [
        {
          type: 'provider_item',
          provider: 'openai',
          data: responsesItem(file, 'rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9'),
        },
        ...call('call_AB6AaRZ1FYZB2RwS6A5vbdqn', 'calculator', '{"a":12,"b":7,"op":"add"}'),
        { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 134, outputTokens: 28 } },
      ],
      [
        ...call('call_Q6pW65MUgW9vF59BmItYGos3', 'calculator', '{"a":19,"b":3,"op":"multiply"}'),
        { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 221, outputTokens: 26 } },
      ],
      [
        ...call('call_Zl5vIMnD7dVAjgU6FkhmiCZh', 'calculator', '{"a":57,"b":10,"op":"multiply"}'),
        { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 260, outputTokens: 26 } },
      ],
      [
        text('The final result is **570**.'),
        { type: 'finish', reason: 'stop', usage: { inputTokens: 299, outputTokens: 12 } },
      ],
    ]);
  });

  test.each([
    [
      'lmstudio-responses.reasoning-text-then-call.no-arg-deltas.1.jsonl',
      'rs_3yo6zy4vu4hq6iegqwhn1',
      'call_2025306790300011',
      61,
    ],
    [
      'lmstudio-responses.reasoning-text-then-call.no-arg-deltas.2.jsonl',
      'rs_jm2uvisepha7peu2y40spd',
      'call_3466696471230001',
      60,
    ],
  ])(
    'LM Studio %s: reasoning, text, then a call with no argument deltas',
    async (file, reasoningId, callId, outputTokens) => {
      const [events] = await replay(file, 'responses');
      expect(mergeDeltas(events!)).toEqual([
        { type: 'provider_item', provider: 'openai', data: responsesItem(file, reasoningId) },
        text("I'll get the current weather information for San Francisco for you."),
        started(callId, 'weather'),
        completed(callId, 'weather', '{"location":"San Francisco"}'),
        { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 182, outputTokens } },
      ]);
    },
  );
});

describe('Chat Completions fixtures (OpenAI and OpenAI-compatible vendors)', () => {
  test('gpt-4o: two parallel calls, each in fragments', async () => {
    const [events] = await replay('openai-chat.parallel-calls.gpt-4o.sse', 'chat');
    expect(mergeDeltas(events!)).toEqual([
      started('call_JMW1whyEaYG438VE1OIflxA2', 'GetWeatherArgs'),
      argumentsDelta('call_JMW1whyEaYG438VE1OIflxA2', '{"city": "Edinburgh", "country": "GB", "units": "c"}'),
      started('call_DNYTawLBoN8fj3KN6qU9N1Ou', 'get_stock_price'),
      argumentsDelta('call_DNYTawLBoN8fj3KN6qU9N1Ou', '{"ticker": "AAPL", "exchange": "NASDAQ"}'),
      completed(
        'call_JMW1whyEaYG438VE1OIflxA2',
        'GetWeatherArgs',
        '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      ),
      completed(
        'call_DNYTawLBoN8fj3KN6qU9N1Ou',
        'get_stock_price',
        '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      ),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 149, outputTokens: 60 } },
    ]);
  });

  test('gpt-4o strict: id, name and empty arguments in the first delta', async () => {
    const [events] = await replay('openai-chat.single-call-strict.gpt-4o.sse', 'chat');
    expect(mergeDeltas(events!)).toEqual([
      ...call('call_CTf1nWJLqSeRgDqaCG27xZ74', 'get_weather', '{"city":"San Francisco","state":"CA"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 48, outputTokens: 19 } },
    ]);
  });

  test('groq: a no-args call sent whole', async () => {
    const [events] = await replay('groq-chat.no-args-whole-call.llama-3.3-70b.jsonl', 'chat');
    expect(events).toEqual([
      ...call('tk85n1k4m', 'weather', '{}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 210, outputTokens: 15 } },
    ]);
  });

  test('deepseek-reasoner: reasoning kept for replay, then 10 argument fragments', async () => {
    const [events] = await replay('deepseek-chat.reasoning-then-call.deepseek-reasoner.jsonl', 'chat');
    expect(countOf(events!, 'tool_call_arguments_delta')).toBe(10);
    expect(mergeDeltas(events!)).toEqual([
      started('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'weather'),
      argumentsDelta('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', '{"location": "San Francisco"}'),
      {
        type: 'provider_item',
        provider: 'openai-compatible',
        data: {
          type: 'reasoning_content',
          text: 'The user is asking for the weather in San Francisco. I need to use the weather tool to get this information. Let me invoke the weather tool with the location parameter set to "San Francisco".',
        },
      },
      completed('call_00_ioIn7yN9p1ZOMNpDLwd4MgAF', 'weather', '{"location": "San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 339, outputTokens: 83 } },
    ]);
  });

  test('mistral-small: a whole call without index or type, finished in the same chunk', async () => {
    const [events] = await replay('mistral-chat.call-and-finish-same-chunk.mistral-small.jsonl', 'chat');
    expect(events).toEqual([
      ...call('gSIMJiOkT', 'weather', '{"location": "San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 124, outputTokens: 22 } },
    ]);
  });

  test('glm-5.2 on Mistral: the continuation has an empty name and no id', async () => {
    const [events] = await replay('mistral-chat.incremental-empty-name.glm-5.2.jsonl', 'chat');
    expect(events).toEqual([
      ...call('chatcmpl-tool-9f149c74c42f265b', 'webSearchTool', '{"query": "current Berlin weather"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 171, outputTokens: 14 } },
    ]);
  });

  test('grok-3-mini: reasoning, then the whole call in one chunk', async () => {
    const [events] = await replay('xai-chat.reasoning-then-whole-call.grok-3-mini.jsonl', 'chat');
    expect(mergeDeltas(events!)).toEqual([
      started('call_55117580', 'weather'),
      argumentsDelta('call_55117580', '{"location":"San Francisco"}'),
      {
        type: 'provider_item',
        provider: 'openai-compatible',
        data: { type: 'reasoning_content', text: 'First, the user is' },
      },
      completed('call_55117580', 'weather', '{"location":"San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 291, outputTokens: 26 } },
    ]);
  });

  test('qwen3-max: continuations repeat an empty id', async () => {
    const [events] = await replay('alibaba-chat.empty-id-continuations.qwen3-max.jsonl', 'chat');
    expect(mergeDeltas(events!)).toEqual([
      ...call('call_eee11723464a4b9eb8cee71d', 'weather', '{"location": "San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 295, outputTokens: 22 } },
    ]);
  });

  test("Anthropic's compatible endpoint: text, then a call at index 1, no usage", async () => {
    const [events] = await replay(
      'anthropic-openai-compat-chat.text-then-call-index-1.claude-haiku-4-5.sse',
      'chat',
    );
    expect(mergeDeltas(events!)).toEqual([
      text('Reading it.'),
      ...call('toolu_sanitized', 'read_file', '{"path": "a.txt"}'),
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });
});

describe('Anthropic Messages fixtures', () => {
  const paris = '{"location": "Paris"}';
  test('sonnet-4: text, then a tool_use whose first fragment is empty', async () => {
    const [events] = await replay('anthropic-messages.text-then-call.claude-sonnet-4.sse', 'anthropic');
    expect(mergeDeltas(events!)).toEqual([
      text("I'll check the current weather in Paris for you."),
      ...call('toolu_01NRLabsLyVHZPKxbKvkfSMn', 'get_weather', paris),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 377, outputTokens: 65 } },
    ]);
  });

  test('sonnet-4: invalid JSON arguments are passed through raw', async () => {
    const [events] = await replay('anthropic-messages.invalid-json-args.claude-sonnet-4.sse', 'anthropic');
    expect(mergeDeltas(events!)).toEqual([
      text("I'll check the current weather in Paris for you."),
      ...call('toolu_01NRLabsLyVHZPKxbKvkfSMn', 'get_weather', '{"location": "Paris", "unit": celsius}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 377, outputTokens: 65 } },
    ]);
  });

  test('3-7-sonnet: cut by max_tokens inside a call — the call is never completed', async () => {
    const [events] = await replay(
      'anthropic-messages.max-tokens-mid-call.claude-3-7-sonnet.sse',
      'anthropic',
    );
    expect(mergeDeltas(events!)).toEqual([
      text(
        "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now.",
      ),
      started('toolu_01EKqbqmZrGRXy18eN7m9kvY', 'make_file'),
      argumentsDelta(
        'toolu_01EKqbqmZrGRXy18eN7m9kvY',
        '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes',
      ),
      { type: 'finish', reason: 'length', usage: { inputTokens: 450, outputTokens: 124 } },
    ]);
  });

  test('sonnet-4-5: a no-args call whose only fragment is empty becomes {}', async () => {
    const [events] = await replay('anthropic-messages.no-args-call.claude-sonnet-4-5.jsonl', 'anthropic');
    expect(mergeDeltas(events!)).toEqual([
      text("I'll update the issue list for you."),
      started('toolu_01QE1WLsSVp5hy5Q3GmGTmjP', 'updateIssueList'),
      completed('toolu_01QE1WLsSVp5hy5Q3GmGTmjP', 'updateIssueList', '{}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 565, outputTokens: 48 } },
    ]);
  });

  test('haiku-4-5: a call only, with nested arguments', async () => {
    const [events] = await replay('anthropic-messages.call-only-index-0.claude-haiku-4-5.jsonl', 'anthropic');
    expect(mergeDeltas(events!)).toEqual([
      ...call(
        'toolu_01KFbKqPYSuAKujiL6mTfzYA',
        'json',
        '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}',
      ),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 849, outputTokens: 47 } },
    ]);
  });
});

describe('Gemini Interactions fixtures', () => {
  test('step 1: a thought signature kept for replay, then a call (requires_action)', async () => {
    const file = 'gemini-interactions.call-requires-action.step1.gemini-2.5-flash.jsonl';
    const signature = (
      JSON.parse(readProviderFixture(file).split('\n')[3]!) as { delta: { signature: string } }
    ).delta.signature;
    const [events] = await replay(file, 'gemini');
    expect(events).toEqual([
      { type: 'provider_item', provider: 'gemini', data: { type: 'thought', signature } },
      ...call('61nzpsv4', 'getWeather', '{"location":"San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 53, outputTokens: 15 } },
    ]);
  });

  test('step 2: the answer after the result', async () => {
    const [events] = await replay(
      'gemini-interactions.text-after-result.step2.gemini-2.5-flash.jsonl',
      'gemini',
    );
    expect(events).toEqual([
      {
        type: 'provider_item',
        provider: 'gemini',
        data: { type: 'thought', signature: 'CiRlMjQ4MzBhNy01Y2Q2LTQyZmUtOTk4Yi1lZTUzOWU3MmI5YzM=' },
      },
      text('The weather in San'),
      text(' Francisco right now is sunny with a temperature of 27 degrees Celsius.'),
      { type: 'finish', reason: 'stop', usage: { inputTokens: 161, outputTokens: 19 } },
    ]);
  });
});
