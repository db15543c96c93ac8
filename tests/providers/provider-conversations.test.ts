/**
 * Multi-iteration conversations per provider, through the official SDKs and the replay server: the model
 * thinks, says something, calls two tools in parallel (one result fails), then calls a tool without
 * arguments, then answers. The server asserts that each request carries the previous iteration's calls and
 * results in the provider's exact shape, with whatever it needs replayed (reasoning, signatures).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { ToolDefinition } from '../../src/contracts/tool-definition.ts';
import { createAnthropicMessagesProvider } from '../../src/providers/anthropic-messages-provider.ts';
import { createGeminiInteractionsProvider } from '../../src/providers/gemini-interactions-provider.ts';
import { toGeminiSchema } from '../../src/providers/gemini-schema.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses-provider.ts';
import { toStrictSchema } from '../../src/providers/strict-schema.ts';
import { type RecordedRequest, startReplayServer } from '../helpers/replay-server.ts';
import {
  anthropicBody,
  chatBody,
  geminiBody,
  responsesBody,
  type ScriptedTurn,
} from '../helpers/scripted-provider-streams.ts';
import { collect, makeRequest, weatherTool } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

const clockTool: ToolDefinition = {
  name: 'get_current_datetime',
  description: 'Now.',
  parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
};
const QUESTION = 'Weather in Paris and Rome?';
const SYSTEM = 'Be brief.';
const PARIS_OUTPUT = '{"temperatureC":18}';
const ROME_OUTPUT = '{"error":{"classification":"timeout","message":"The weather service did not answer."}}';
const CLOCK_OUTPUT = '{"isoUtc":"2026-11-30T06:00:00.000Z"}';
const RESULTS: Record<string, { ok: boolean; output: string }> = {
  call_paris: { ok: true, output: PARIS_OUTPUT },
  call_rome: { ok: false, output: ROME_OUTPUT },
  call_clock: { ok: true, output: CLOCK_OUTPUT },
};

const TURNS: ScriptedTurn[] = [
  {
    reasoning: 'plan',
    text: 'Checking both.',
    calls: [
      { id: 'call_paris', name: 'get_weather', fragments: ['{"location":', '"Paris"}'] },
      { id: 'call_rome', name: 'get_weather', fragments: ['{"location":"Rome"}'] },
    ],
  },
  { calls: [{ id: 'call_clock', name: 'get_current_datetime', fragments: [] }] },
  { text: 'Paris is 18 °C; Rome did not answer.' },
];

/** What the chat loop does with one response: persist text, provider items and calls, then the results. */
function applyIteration(history: ConversationItem[], events: readonly ProviderEvent[]): void {
  let text = '';
  const flushText = () => {
    if (text) history.push({ type: 'assistant_text', text });
    text = '';
  };
  const calls: { callId: string; name: string }[] = [];
  for (const event of events) {
    if (event.type === 'text_delta') text += event.delta;
    else if (event.type === 'provider_item') {
      flushText();
      history.push({ type: 'provider_item', provider: event.provider, data: event.data });
    } else if (event.type === 'tool_call_started') flushText();
    else if (event.type === 'tool_call_completed') {
      calls.push({ callId: event.callId, name: event.name });
      history.push({
        type: 'tool_call',
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
        ...(event.providerData !== undefined ? { providerData: event.providerData } : {}),
      });
    }
  }
  flushText();
  for (const call of calls) history.push({ type: 'tool_result', ...call, ...RESULTS[call.callId]! });
}

/**
 * Runs the three iterations. `expectedHistory[n]` is what request n must carry in the provider's own
 * shape (read from the request body by `historyOf`); `checkFirst` asserts the rest of the first request.
 */
async function converse(options: {
  provider: ModelProvider;
  model: string;
  bodies: string[];
  historyOf: (request: RecordedRequest) => unknown;
  expectedHistory: unknown[];
  checkFirst: (request: RecordedRequest) => void;
}): Promise<ProviderEvent[][]> {
  const history: ConversationItem[] = [{ type: 'user_text', text: QUESTION }];
  const allEvents: ProviderEvent[][] = [];
  const failuresBefore = server.failures.length;
  for (const [iteration, body] of options.bodies.entries()) {
    server.enqueue({
      body,
      expectRequest: (request) => {
        if (iteration === 0) options.checkFirst(request);
        expect(options.historyOf(request)).toEqual(options.expectedHistory[iteration]);
      },
    });
    const events = await collect(
      options.provider.stream(
        makeRequest({
          model: options.model,
          systemPrompt: SYSTEM,
          history: [...history],
          tools: [weatherTool, clockTool],
        }),
      ),
    );
    allEvents.push(events);
    applyIteration(history, events);
  }
  expect(server.failures.slice(failuresBefore)).toEqual([]);
  return allEvents;
}

function expectFinalAnswer(events: ProviderEvent[][]) {
  expect(events.map((iteration) => iteration.find((event) => event.type === 'finish'))).toEqual([
    expect.objectContaining({ type: 'finish', reason: 'tool_calls' }),
    expect.objectContaining({ type: 'finish', reason: 'tool_calls' }),
    expect.objectContaining({ type: 'finish', reason: 'stop' }),
  ]);
  expect(events[2]!.filter((event) => event.type === 'text_delta')).toEqual([
    { type: 'text_delta', delta: 'Paris is 18 °C; Rome did not answer.' },
  ]);
}

describe('the next request carries the previous iteration in the provider shape', () => {
  test('OpenAI Responses: reasoning item replayed, function_call + function_call_output by call_id', async () => {
    const user = { role: 'user', content: QUESTION };
    const iteration1 = [
      {
        id: 'rs_resp_1',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'plan' }],
        encrypted_content: 'enc:plan',
      },
      { role: 'assistant', content: 'Checking both.' },
      {
        type: 'function_call',
        call_id: 'call_paris',
        name: 'get_weather',
        arguments: '{"location":"Paris"}',
      },
      { type: 'function_call', call_id: 'call_rome', name: 'get_weather', arguments: '{"location":"Rome"}' },
      { type: 'function_call_output', call_id: 'call_paris', output: PARIS_OUTPUT },
      { type: 'function_call_output', call_id: 'call_rome', output: ROME_OUTPUT },
    ];
    const iteration2 = [
      { type: 'function_call', call_id: 'call_clock', name: 'get_current_datetime', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_clock', output: CLOCK_OUTPUT },
    ];
    const events = await converse({
      provider: createOpenAIResponsesProvider({
        apiKey: 'k',
        baseURL: `${server.baseUrl}/v1`,
        maxRetries: 0,
      }),
      model: 'gpt-5.1',
      bodies: TURNS.map((turn, index) => responsesBody(turn, `resp_${index + 1}`)),
      historyOf: (request) => (request.body as { input: unknown }).input,
      expectedHistory: [[user], [user, ...iteration1], [user, ...iteration1, ...iteration2]],
      checkFirst: (request) => {
        expect(request.path).toBe('/v1/responses');
        expect(request.headers.authorization).toBe('Bearer k');
        expect(request.body).toMatchObject({
          model: 'gpt-5.1',
          instructions: SYSTEM,
          stream: true,
          store: false,
          include: ['reasoning.encrypted_content'],
          tools: [
            {
              type: 'function',
              name: 'get_weather',
              strict: true,
              parameters: toStrictSchema(weatherTool.parameters),
            },
            { type: 'function', name: 'get_current_datetime', strict: true },
          ],
        });
      },
    });
    expectFinalAnswer(events);
  });

  test('Chat Completions: one assistant message with tool_calls and reasoning_content, then role tool by tool_call_id', async () => {
    const system = { role: 'system', content: SYSTEM };
    const user = { role: 'user', content: QUESTION };
    const iteration1 = [
      {
        role: 'assistant',
        content: 'Checking both.',
        reasoning_content: 'plan',
        tool_calls: [
          {
            id: 'call_paris',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
          },
          {
            id: 'call_rome',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Rome"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_paris', content: PARIS_OUTPUT },
      { role: 'tool', tool_call_id: 'call_rome', content: ROME_OUTPUT },
    ];
    const iteration2 = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_clock', type: 'function', function: { name: 'get_current_datetime', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_clock', content: CLOCK_OUTPUT },
    ];
    const events = await converse({
      // The second response sends its call without any id: the adapter makes one.
      provider: createOpenAIChatProvider({
        apiKey: 'k',
        baseURL: `${server.baseUrl}/v1`,
        maxRetries: 0,
        createCallId: () => 'call_clock',
      }),
      model: 'qwen3',
      bodies: [chatBody(TURNS[0]!), chatBody(TURNS[1]!, { omitIds: true }), chatBody(TURNS[2]!)],
      historyOf: (request) => (request.body as { messages: unknown }).messages,
      expectedHistory: [
        [system, user],
        [system, user, ...iteration1],
        [system, user, ...iteration1, ...iteration2],
      ],
      checkFirst: (request) => {
        expect(request.path).toBe('/v1/chat/completions');
        expect(request.body).toMatchObject({
          model: 'qwen3',
          stream: true,
          stream_options: { include_usage: true },
          tools: [
            { type: 'function', function: { name: 'get_weather', parameters: weatherTool.parameters } },
            { type: 'function', function: { name: 'get_current_datetime' } },
          ],
        });
      },
    });
    expectFinalAnswer(events);
  });

  test('Anthropic Messages: thinking replayed with its signature, tool_result blocks in one user message', async () => {
    const user = { role: 'user', content: [{ type: 'text', text: QUESTION }] };
    const iteration1 = [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'plan', signature: 'sig:plan' },
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'call_paris', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: 'call_rome', name: 'get_weather', input: { location: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_paris', content: PARIS_OUTPUT },
          { type: 'tool_result', tool_use_id: 'call_rome', content: ROME_OUTPUT, is_error: true },
        ],
      },
    ];
    const iteration2 = [
      {
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'call_clock', name: 'get_current_datetime', input: {} }],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_clock', content: CLOCK_OUTPUT }] },
    ];
    const events = await converse({
      provider: createAnthropicMessagesProvider({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 }),
      model: 'claude-test-model',
      bodies: TURNS.map((turn) => anthropicBody(turn)),
      historyOf: (request) => (request.body as { messages: unknown }).messages,
      expectedHistory: [[user], [user, ...iteration1], [user, ...iteration1, ...iteration2]],
      checkFirst: (request) => {
        expect(request.path).toBe('/v1/messages');
        expect(request.headers.authorization).toBe('Bearer k');
        expect(request.body).toMatchObject({
          model: 'claude-test-model',
          system: SYSTEM,
          max_tokens: 8192,
          stream: true,
          tools: [
            { name: 'get_weather', input_schema: weatherTool.parameters },
            { name: 'get_current_datetime', input_schema: clockTool.parameters },
          ],
        });
      },
    });
    expectFinalAnswer(events);
  });

  test('Gemini Interactions: thought and call signatures replayed, function_result by call_id', async () => {
    const user = { type: 'user_input', content: [{ type: 'text', text: QUESTION }] };
    const iteration1 = [
      { type: 'thought', signature: 'sig:plan' },
      { type: 'model_output', content: [{ type: 'text', text: 'Checking both.' }] },
      {
        type: 'function_call',
        id: 'call_paris',
        name: 'get_weather',
        arguments: { location: 'Paris' },
        signature: 'callsig:call_paris',
      },
      { type: 'function_call', id: 'call_rome', name: 'get_weather', arguments: { location: 'Rome' } },
      { type: 'function_result', call_id: 'call_paris', name: 'get_weather', result: PARIS_OUTPUT },
      {
        type: 'function_result',
        call_id: 'call_rome',
        name: 'get_weather',
        result: ROME_OUTPUT,
        is_error: true,
      },
    ];
    const iteration2 = [
      {
        type: 'function_call',
        id: 'call_clock',
        name: 'get_current_datetime',
        arguments: {},
        signature: 'callsig:call_clock',
      },
      { type: 'function_result', call_id: 'call_clock', name: 'get_current_datetime', result: CLOCK_OUTPUT },
    ];
    const events = await converse({
      provider: createGeminiInteractionsProvider({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 }),
      model: 'gemini-2.5-flash',
      bodies: TURNS.map((turn) => geminiBody(turn)),
      historyOf: (request) => (request.body as { input: unknown }).input,
      expectedHistory: [[user], [user, ...iteration1], [user, ...iteration1, ...iteration2]],
      checkFirst: (request) => {
        expect(request.path.endsWith('/interactions')).toBe(true);
        expect(request.body).toMatchObject({
          model: 'gemini-2.5-flash',
          system_instruction: SYSTEM,
          stream: true,
          store: false,
          tools: [
            { type: 'function', name: 'get_weather', parameters: toGeminiSchema(weatherTool.parameters) },
            { type: 'function', name: 'get_current_datetime' },
          ],
        });
      },
    });
    expectFinalAnswer(events);
  });
});
