/**
 * What a continued tool loop sends back, for the cases real streams showed were lost: Anthropic
 * server-side tool blocks and the text around them replayed block for block in order; Responses
 * assistant messages with their `phase`; Responses encrypted reasoning asked for by what each model did
 * (a 400 to the include is retried once without it and remembered), never by its name; and Chat
 * Completions bodies that end without a finish reason.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { createAnthropicMessagesProvider } from '../../src/providers/anthropic-messages-provider.ts';
import { createOpenAIChatProvider } from '../../src/providers/openai-chat-provider.ts';
import { createOpenAIResponsesProvider } from '../../src/providers/openai-responses-provider.ts';
import { type RecordedRequest, sseFromEvents, startReplayServer } from '../helpers/replay-server.ts';
import { responsesBody } from '../helpers/scripted-provider-streams.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

/** The history items a turn keeps from a stream (text runs split by items, calls, provider items). */
function itemsOf(events: readonly ProviderEvent[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  let text = '';
  const flush = () => {
    if (text) items.push({ type: 'assistant_text', text });
    text = '';
  };
  for (const event of events) {
    if (event.type === 'text_delta') text += event.delta;
    else if (event.type === 'provider_item') {
      flush();
      items.push({ type: 'provider_item', provider: event.provider, data: event.data });
    } else if (event.type === 'tool_call_completed') {
      flush();
      items.push({ type: 'tool_call', callId: event.callId, name: event.name, arguments: event.arguments });
    }
  }
  flush();
  return items;
}

describe('Anthropic: server-side tool blocks', () => {
  test('text, server_tool_use, its result, more text and a call are replayed as five blocks in order', async () => {
    const search = {
      type: 'web_search_result',
      url: 'https://example.com',
      title: 'Ex',
      encrypted_content: 'E1',
    };
    const events = [
      {
        type: 'message_start',
        message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 3 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Searching.' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'content_block_start',
        index: 1,
        content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '{"query":' },
      },
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'input_json_delta', partial_json: '"paris"}' },
      },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [search] },
      },
      { type: 'content_block_stop', index: 2 },
      { type: 'content_block_start', index: 3, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'Found it.' } },
      { type: 'content_block_stop', index: 3 },
      {
        type: 'content_block_start',
        index: 4,
        content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
      },
      {
        type: 'content_block_delta',
        index: 4,
        delta: { type: 'input_json_delta', partial_json: '{"location":"Paris"}' },
      },
      { type: 'content_block_stop', index: 4 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ];
    const provider = createAnthropicMessagesProvider({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
    server.enqueue({ body: sseFromEvents(events, { eventName: 'type' }) });
    const streamed = await collect(provider.stream(makeRequest()));
    const history: ConversationItem[] = [
      ...makeRequest().history,
      ...itemsOf(streamed),
      { type: 'tool_result', callId: 'toolu_1', name: 'get_weather', ok: true, output: 'sunny' },
    ];
    let sent: RecordedRequest | undefined;
    server.enqueue({
      body: sseFromEvents(
        [
          {
            type: 'message_start',
            message: { id: 'msg_2', type: 'message', role: 'assistant', content: [] },
          },
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } },
          { type: 'message_stop' },
        ],
        { eventName: 'type' },
      ),
      expectRequest: (request) => {
        sent = request;
      },
    });
    await collect(provider.stream(makeRequest({ history })));
    expect(server.failures).toEqual([]);
    if (!sent) throw new Error('the second request was not received');
    const messages = (sent.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Searching.' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'paris' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [search] },
        { type: 'text', text: 'Found it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } },
      ],
    });
  });
});

describe('Responses: phase and encrypted reasoning', () => {
  const phasedBody = sseFromEvents(
    [
      { type: 'response.created', response: { id: 'r1', status: 'in_progress', output: [] } },
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: {
          id: 'm1',
          type: 'message',
          role: 'assistant',
          status: 'in_progress',
          content: [],
          phase: 'commentary',
        },
      },
      {
        type: 'response.output_text.delta',
        item_id: 'm1',
        output_index: 0,
        content_index: 0,
        delta: 'Checking.',
      },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          id: 'm1',
          type: 'message',
          role: 'assistant',
          status: 'completed',
          phase: 'commentary',
          content: [{ type: 'output_text', text: 'Checking.', annotations: [] }],
        },
      },
      { type: 'response.completed', response: { id: 'r1', status: 'completed', output: [] } },
    ],
    { eventName: 'type' },
  );

  test('an assistant message with a phase is replayed with it', async () => {
    const provider = createOpenAIResponsesProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
    });
    server.enqueue({ body: phasedBody });
    const streamed = await collect(provider.stream(makeRequest({ model: 'gpt-5.3-codex' })));
    expect(streamed.filter((event) => event.type === 'provider_item')).toEqual([
      { type: 'provider_item', provider: 'openai', data: { type: 'assistant_phase', phase: 'commentary' } },
    ]);
    const history = [
      ...makeRequest().history,
      ...itemsOf(streamed),
      { type: 'user_text' as const, text: 'Go on.' },
    ];
    let input: unknown;
    server.enqueue({
      body: responsesBody({ text: 'Done.' }),
      expectRequest: (request) => {
        input = (request.body as { input: unknown }).input;
      },
    });
    await collect(provider.stream(makeRequest({ model: 'gpt-5.3-codex', history })));
    expect(server.failures).toEqual([]);
    expect(input).toEqual([
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: 'Checking.', phase: 'commentary' },
      { role: 'user', content: 'Go on.' },
    ]);
  });

  test('a 400 to the reasoning include is retried once without it, and the model is remembered', async () => {
    const provider = createOpenAIResponsesProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
    });
    const includes: unknown[] = [];
    const record = (request: RecordedRequest) => {
      includes.push((request.body as { include?: unknown }).include);
    };
    server.enqueue(
      {
        status: 400,
        headers: { 'content-type': 'application/json' },
        chunks: [
          JSON.stringify({
            error: {
              message: 'Encrypted content is not supported with this model.',
              param: 'include',
              type: 'invalid_request_error',
            },
          }),
        ],
        expectRequest: record,
      },
      { body: responsesBody({ text: 'One.' }), expectRequest: record },
      { body: responsesBody({ text: 'Two.' }), expectRequest: record },
    );
    const first = await collect(provider.stream(makeRequest({ model: 'served-model' })));
    expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    const second = await collect(provider.stream(makeRequest({ model: 'served-model' })));
    expect(second.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(includes).toEqual([['reasoning.encrypted_content'], undefined, undefined]);
    expect(server.failures).toEqual([]);
  });

  test('a model whose stream carried reasoning is asked again; an override wins over everything', async () => {
    const provider = createOpenAIResponsesProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
      includeEncryptedReasoning: (model) => (model === 'pinned-off' ? false : undefined),
    });
    const includes: unknown[] = [];
    const record = (request: RecordedRequest) => {
      includes.push((request.body as { include?: unknown }).include);
    };
    server.enqueue(
      { body: responsesBody({ reasoning: 'why', text: 'A.' }), expectRequest: record },
      { body: responsesBody({ text: 'B.' }), expectRequest: record },
      { body: responsesBody({ text: 'C.' }), expectRequest: record },
    );
    await collect(provider.stream(makeRequest({ model: 'o-like' })));
    await collect(provider.stream(makeRequest({ model: 'o-like' })));
    await collect(provider.stream(makeRequest({ model: 'pinned-off' })));
    expect(includes).toEqual([['reasoning.encrypted_content'], ['reasoning.encrypted_content'], undefined]);
    expect(server.failures).toEqual([]);
  });
});

describe('Chat Completions: no finish reason', () => {
  const chunk = (delta: unknown) => ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: null }],
  });
  const usageChunk = {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 2, completion_tokens: 1 },
  };

  test('content, a usage chunk and [DONE] without a finish reason is a normal stop', async () => {
    server.enqueue({
      body: sseFromEvents([chunk({ role: 'assistant' }), chunk({ content: 'Hi.' }), usageChunk], {
        done: true,
      }),
    });
    const provider = createOpenAIChatProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
    });
    expect(await collect(provider.stream(makeRequest()))).toEqual([
      { type: 'text_delta', delta: 'Hi.' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 2, outputTokens: 1 } },
    ]);
  });

  test('the same body without [DONE] was cut: an error', async () => {
    server.enqueue({
      body: sseFromEvents([chunk({ role: 'assistant' }), chunk({ content: 'Hi.' }), usageChunk]),
    });
    const provider = createOpenAIChatProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
    });
    expect(await collect(provider.stream(makeRequest()))).toEqual([
      { type: 'text_delta', delta: 'Hi.' },
      {
        type: 'finish',
        reason: 'error',
        message: 'The provider stream ended before the response was complete.',
        usage: { inputTokens: 2, outputTokens: 1 },
      },
    ]);
  });

  test('[DONE] with a call still open (no finish reason) stays an error: the call is never completed', async () => {
    server.enqueue({
      body: sseFromEvents(
        [
          chunk({
            tool_calls: [
              { index: 0, id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"loc' } },
            ],
          }),
          usageChunk,
        ],
        { done: true },
      ),
    });
    const provider = createOpenAIChatProvider({
      apiKey: 'k',
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
    });
    const events = await collect(provider.stream(makeRequest()));
    expect(events.some((event) => event.type === 'tool_call_completed')).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: 'finish', reason: 'error' });
  });
});
