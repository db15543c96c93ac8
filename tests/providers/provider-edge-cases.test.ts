/**
 * Stream and request edge cases found in review, robust to what real servers send: each test
 * pins one behaviour of one adapter with exact events or an exact request body.
 */
import { describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import {
  historyToAnthropicMessages,
  translateAnthropicStream,
} from '../../src/providers/anthropic-messages-provider.ts';
import {
  historyToGeminiSteps,
  translateGeminiStream,
} from '../../src/providers/gemini-interactions-provider.ts';
import { historyToChatMessages, translateChatStream } from '../../src/providers/openai-chat-provider.ts';
import { historyToResponsesInput } from '../../src/providers/openai-responses-provider.ts';
import { collect } from './provider-test-support.ts';

async function* fromArray<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

const signal = new AbortController().signal;

describe('Anthropic Messages', () => {
  test('input usage counts cached prompt tokens too, like the other providers do', async () => {
    const events = await collect(
      translateAnthropicStream(
        fromArray([
          {
            type: 'message_start',
            message: {
              usage: {
                input_tokens: 5,
                cache_creation_input_tokens: 100,
                cache_read_input_tokens: 2000,
                output_tokens: 1,
              },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } },
          { type: 'message_stop' },
        ] as never[]),
        signal,
      ),
    );
    expect(events).toEqual([
      { type: 'text_delta', delta: 'Hi' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 2105, outputTokens: 7 } },
    ]);
  });

  test('a tool_use block stopped by max_tokens is never completed; an earlier whole call still is', async () => {
    const events: ProviderEvent[] = await collect(
      translateAnthropicStream(
        fromArray([
          { type: 'message_start', message: { usage: { input_tokens: 3, output_tokens: 1 } } },
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: '{"a":1}' },
          },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'content_block_start',
            index: 1,
            content_block: { type: 'tool_use', id: 'toolu_2', name: 'g', input: {} },
          },
          {
            type: 'content_block_delta',
            index: 1,
            delta: { type: 'input_json_delta', partial_json: '{"b":' },
          },
          { type: 'content_block_stop', index: 1 },
          { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } },
          { type: 'message_stop' },
        ] as never[]),
        signal,
      ),
    );
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'toolu_1', name: 'f' },
      { type: 'tool_call_arguments_delta', callId: 'toolu_1', delta: '{"a":1}' },
      { type: 'tool_call_completed', callId: 'toolu_1', name: 'f', arguments: '{"a":1}' },
      { type: 'tool_call_started', callId: 'toolu_2', name: 'g' },
      { type: 'tool_call_arguments_delta', callId: 'toolu_2', delta: '{"b":' },
      { type: 'finish', reason: 'length', usage: { inputTokens: 3, outputTokens: 9 } },
    ]);
  });
});

const chunk = (delta: unknown, finishReason: string | null = null, usage?: unknown) =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  }) as never;

async function translateChat(chunks: readonly never[]): Promise<ProviderEvent[]> {
  let generated = 0;
  return collect(
    translateChatStream(fromArray(chunks), signal, { createCallId: () => `generated-${++generated}` }),
  );
}

describe('Chat Completions', () => {
  test('a reused index with no id but another name is a new call, not more arguments of the first', async () => {
    const events = await translateChat([
      chunk({ tool_calls: [{ index: 0, id: 'A', function: { name: 'f', arguments: '{"a":1}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'g', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'A', name: 'f' },
      { type: 'tool_call_arguments_delta', callId: 'A', delta: '{"a":1}' },
      { type: 'tool_call_started', callId: 'generated-1', name: 'g' },
      { type: 'tool_call_arguments_delta', callId: 'generated-1', delta: '{}' },
      { type: 'tool_call_completed', callId: 'A', name: 'f', arguments: '{"a":1}' },
      { type: 'tool_call_completed', callId: 'generated-1', name: 'g', arguments: '{}' },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  test('finish_reason tool_calls with no call in the stream finishes with stop (nothing to wait for)', async () => {
    const events = await translateChat([chunk({ content: 'Done.' }), chunk({}, 'tool_calls')]);
    expect(events).toEqual([
      { type: 'text_delta', delta: 'Done.' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  test('a content-filter stop keeps the usage the server reported', async () => {
    const events = await translateChat([
      chunk({ content: 'x' }),
      chunk({}, 'content_filter', { prompt_tokens: 4, completion_tokens: 2 }),
    ]);
    expect(events).toEqual([
      { type: 'text_delta', delta: 'x' },
      {
        type: 'finish',
        reason: 'content_filter',
        message: "The provider's content filter stopped the answer.",
        usage: { inputTokens: 4, outputTokens: 2 },
      },
    ]);
  });
});

describe('empty assistant text is not replayed (providers refuse empty text parts)', () => {
  const history: ConversationItem[] = [
    { type: 'user_text', text: 'hi' },
    { type: 'assistant_text', text: '' },
    { type: 'tool_call', callId: 'c1', name: 'f', arguments: '{}' },
    { type: 'tool_result', callId: 'c1', name: 'f', ok: true, output: '"ok"' },
    { type: 'assistant_text', text: '' },
    { type: 'user_text', text: 'next' },
  ];

  test('Responses', () => {
    expect(historyToResponsesInput(history)).toEqual([
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c1', output: '"ok"' },
      { role: 'user', content: 'next' },
    ]);
  });

  test('Chat Completions', () => {
    expect(historyToChatMessages(undefined, history)).toEqual([
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '"ok"' },
      { role: 'user', content: 'next' },
    ]);
  });

  test('Gemini Interactions', () => {
    expect(historyToGeminiSteps(history)).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'hi' }] },
      { type: 'function_call', id: 'c1', name: 'f', arguments: {} },
      { type: 'function_result', call_id: 'c1', name: 'f', result: '"ok"' },
      { type: 'user_input', content: [{ type: 'text', text: 'next' }] },
    ]);
  });

  test('Anthropic Messages', () => {
    expect(historyToAnthropicMessages(history)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'f', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: '"ok"' },
          { type: 'text', text: 'next' },
        ],
      },
    ]);
  });
});

describe('Gemini Interactions', () => {
  test('a call step the output budget cut (incomplete) is never completed; an earlier whole call still is', async () => {
    const events = await collect(
      translateGeminiStream(
        fromArray([
          {
            event_type: 'step.start',
            index: 0,
            step: { type: 'function_call', id: 'c1', name: 'f', arguments: { a: 1 } },
          },
          { event_type: 'step.stop', index: 0 },
          {
            event_type: 'step.start',
            index: 1,
            step: { type: 'function_call', id: 'c2', name: 'g', arguments: {} },
          },
          { event_type: 'step.delta', index: 1, delta: { type: 'arguments_delta', arguments: '{"b":' } },
          { event_type: 'step.stop', index: 1 },
          { event_type: 'interaction.completed', interaction: { id: 'i', status: 'incomplete' } },
        ] as never[]),
        signal,
      ),
    );
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'c1', name: 'f' },
      { type: 'tool_call_completed', callId: 'c1', name: 'f', arguments: '{"a":1}' },
      { type: 'tool_call_started', callId: 'c2', name: 'g' },
      { type: 'tool_call_arguments_delta', callId: 'c2', delta: '{"b":' },
      { type: 'finish', reason: 'length' },
    ]);
  });
});
