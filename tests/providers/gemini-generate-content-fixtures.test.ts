/**
 * The Gemini generateContent and Vertex AI recordings (`__fixtures__/provider-streams/`) replayed through
 * `@google/genai` and the `gemini-generate-content` adapter, compared with the exact `ProviderEvent`
 * sequence; the request shape for the Gemini API and for Vertex AI (URL, token), and the history the
 * next iteration sends (signatures and `functionResponse` parts).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import {
  createGeminiGenerateContentProvider,
  type GeminiGenerateContentProviderOptions,
  type VertexOptions,
} from '../../src/providers/gemini-generate-content-provider.ts';
import { readProviderFixture, sseFromJsonl, startReplayServer } from '../helpers/replay-server.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

function provider(overrides: Partial<GeminiGenerateContentProviderOptions> = {}) {
  let next = 0;
  return createGeminiGenerateContentProvider({
    apiKey: 'test-key',
    baseURL: server.baseUrl,
    maxRetries: 0,
    createCallId: () => `call_${++next}`,
    ...overrides,
  });
}

function signatureIn(file: string, line: number): string {
  const lines = readProviderFixture(file).split('\n');
  const parsed = JSON.parse(lines[line]!) as {
    candidates: { content: { parts: { thoughtSignature?: string }[] } }[];
  };
  return parsed.candidates[0]!.content.parts[0]!.thoughtSignature!;
}

async function replay(file: string, overrides: Partial<GeminiGenerateContentProviderOptions> = {}) {
  server.enqueue({ body: sseFromJsonl(readProviderFixture(file)) });
  const events = await collect(provider(overrides).stream(makeRequest()));
  expect(server.failures).toEqual([]);
  return events;
}

const call = (callId: string, name: string, args: string, providerData?: unknown): ProviderEvent[] => [
  { type: 'tool_call_started', callId, name },
  ...(args === '{}' ? [] : [{ type: 'tool_call_arguments_delta' as const, callId, delta: args }]),
  {
    type: 'tool_call_completed',
    callId,
    name,
    arguments: args,
    ...(providerData === undefined ? {} : { providerData }),
  },
];

describe('Gemini generateContent recordings', () => {
  test('gemini-3-pro: a whole call with its signature, then STOP: finishes with tool_calls', async () => {
    const file = 'gemini-generatecontent.single-call.gemini-3-pro.jsonl';
    expect(await replay(file)).toEqual([
      ...call('call_1', 'weather', '{"location":"San Francisco"}', {
        thoughtSignature: signatureIn(file, 0),
      }),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 29, outputTokens: 60 } },
    ]);
  });

  test('Vertex gemini-3.1-pro: two calls with streamed partialArgs closed by empty terminators', async () => {
    const file = 'gemini-vertex.streamed-args.two-calls.gemini-3.1-pro.jsonl';
    expect(await replay(file)).toEqual([
      ...call('call_1', 'getWeather', '{"location":"Boston"}', { thoughtSignature: signatureIn(file, 0) }),
      ...call('call_2', 'getWeather', '{"location":"San Francisco"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 26, outputTokens: 155 } },
    ]);
  });

  test('Vertex gemini-3-flash: a thought, a no-args call, then three streamed calls', async () => {
    const file = 'gemini-vertex.streamed-args.no-args-plus-three-calls.gemini-3-flash.jsonl';
    expect(await replay(file)).toEqual([
      ...call('call_1', 'read_theme', '{}', { thoughtSignature: signatureIn(file, 1) }),
      ...call('call_2', 'read_screen', '{"id":"A"}'),
      ...call('call_3', 'read_screen', '{"id":"B"}'),
      ...call('call_4', 'read_screen', '{"id":"C"}'),
      { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 249, outputTokens: 241 } },
    ]);
  });
});

describe('requests', () => {
  test('the Gemini API: the key header, streamGenerateContent with alt=sse, sanitized tool schemas', async () => {
    const events = await replay('gemini-generatecontent.single-call.gemini-3-pro.jsonl');
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'tool_calls' });
    const request = server.requests.at(-1)!;
    expect(request.path).toBe('/v1/models/test-model:streamGenerateContent');
    expect(request.search).toBe('?alt=sse');
    expect(request.headers['x-goog-api-key']).toBe('test-key');
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'get_weather',
              description: 'Current weather for a place.',
              parameters: {
                type: 'OBJECT',
                properties: {
                  location: { type: 'STRING', minLength: 1 },
                  unit: { type: 'STRING', enum: ['c', 'f'] },
                },
                required: ['location'],
              },
            },
          ],
        },
      ],
      generationConfig: {},
    });
  });

  test("Vertex AI: the project's location URL and the bearer token, no API key", async () => {
    const vertex: VertexOptions = {
      project: 'mango-test',
      location: 'us-central1',
      // A stubbed token: the real auth library would ask Google's token endpoint, which tests cannot reach.
      googleAuthOptions: {
        authClient: {
          getRequestHeaders: async () => new Headers({ authorization: 'Bearer stub-vertex-token' }),
        },
      } as unknown as VertexOptions['googleAuthOptions'],
    };
    const events = await replay('gemini-vertex.streamed-args.two-calls.gemini-3.1-pro.jsonl', {
      vertex,
      streamFunctionCallArguments: true,
    });
    expect(events.filter((event) => event.type === 'tool_call_completed')).toHaveLength(2);
    const request = server.requests.at(-1)!;
    expect(request.path).toBe(
      '/v1beta1/projects/mango-test/locations/us-central1/publishers/google/models/test-model:streamGenerateContent',
    );
    expect(request.search).toBe('?alt=sse');
    expect(request.headers.authorization).toBe('Bearer stub-vertex-token');
    expect(request.headers['x-goog-api-key']).toBeUndefined();
    expect((request.body as { toolConfig?: unknown }).toolConfig).toEqual({
      functionCallingConfig: { streamFunctionCallArguments: true },
    });
  });

  test('the next iteration replays calls with their signatures and ids, and results as functionResponse', async () => {
    server.enqueue({
      body: sseFromJsonl(
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Sunny."}]},"finishReason":"STOP"}]}\n',
      ),
    });
    const history: ConversationItem[] = [
      { type: 'user_text', text: 'Weather in Paris and Rome?' },
      {
        type: 'provider_item',
        provider: 'gemini-generate-content',
        data: { text: 'plan', thought: true, thoughtSignature: 'T1' },
      },
      { type: 'assistant_text', text: '' },
      {
        type: 'tool_call',
        callId: 'call_1',
        name: 'get_weather',
        arguments: '{"location":"Paris"}',
        providerData: { thoughtSignature: 'S1' },
      },
      {
        type: 'tool_call',
        callId: 'fc_9',
        name: 'get_weather',
        arguments: 'not json',
        providerData: { id: 'fc_9' },
      },
      { type: 'tool_result', callId: 'call_1', name: 'get_weather', ok: true, output: '{"sky":"clear"}' },
      { type: 'tool_result', callId: 'fc_9', name: 'get_weather', ok: false, output: 'invalid arguments' },
    ];
    const events = await collect(provider().stream(makeRequest({ history, systemPrompt: 'Be brief.' })));
    expect(events).toEqual([
      { type: 'text_delta', delta: 'Sunny.' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(server.failures).toEqual([]);
    const body = server.requests.at(-1)!.body as { contents: unknown; systemInstruction: unknown };
    expect(body.systemInstruction).toEqual({ role: 'user', parts: [{ text: 'Be brief.' }] });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
      {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 'T1' },
          { functionCall: { name: 'get_weather', args: { location: 'Paris' } }, thoughtSignature: 'S1' },
          { functionCall: { id: 'fc_9', name: 'get_weather', args: {} } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: '{"sky":"clear"}' } } },
          { functionResponse: { id: 'fc_9', name: 'get_weather', response: { error: 'invalid arguments' } } },
        ],
      },
    ]);
  });
});
