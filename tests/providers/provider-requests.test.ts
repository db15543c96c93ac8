/** The pure request builders: history edge cases each provider's API is strict about. */
import { describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import {
  buildAnthropicRequest,
  historyToAnthropicMessages,
} from '../../src/providers/anthropic-messages-provider.ts';
import { historyToGeminiSteps } from '../../src/providers/gemini-interactions-provider.ts';
import { historyToChatMessages } from '../../src/providers/openai-chat-provider.ts';
import {
  buildResponsesRequest,
  historyToResponsesInput,
} from '../../src/providers/openai-responses-provider.ts';

const badCall: ConversationItem[] = [
  { type: 'user_text', text: 'go' },
  { type: 'tool_call', callId: 'c1', name: 'get_weather', arguments: '{"location": Paris}' },
  { type: 'tool_result', callId: 'c1', name: 'get_weather', ok: false, output: '{"error":"invalid JSON"}' },
];

describe('Anthropic', () => {
  test('a call with invalid JSON is replayed with input {}, and a following user text joins the results message', () => {
    expect(historyToAnthropicMessages([...badCall, { type: 'user_text', text: 'try again' }])).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'get_weather', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'c1', content: '{"error":"invalid JSON"}', is_error: true },
          { type: 'text', text: 'try again' },
        ],
      },
    ]);
  });

  test('with tools withheld, the tools already called are declared as stubs with tool_choice none', () => {
    const request = buildAnthropicRequest({ model: 'm', history: badCall, tools: [] });
    expect(request.tools).toEqual([
      { name: 'get_weather', description: 'Not available in this step.', input_schema: { type: 'object' } },
    ]);
    expect(request.tool_choice).toEqual({ type: 'none' });
    const fresh = buildAnthropicRequest({
      model: 'm',
      history: [{ type: 'user_text', text: 'hi' }],
      tools: [],
    });
    expect('tools' in fresh || 'tool_choice' in fresh).toBe(false);
  });

  test('provider items of other providers are not replayed', () => {
    expect(
      historyToAnthropicMessages([
        { type: 'user_text', text: 'hi' },
        { type: 'provider_item', provider: 'gemini', data: { type: 'thought', signature: 's' } },
        { type: 'assistant_text', text: 'hello' },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
    ]);
  });
});

describe('Chat Completions', () => {
  test('reasoning is sent back only inside the current turn', () => {
    const reasoning = (text: string): ConversationItem => ({
      type: 'provider_item',
      provider: 'openai-compatible',
      data: { type: 'reasoning_content', text },
    });
    const messages: unknown[] = historyToChatMessages(undefined, [
      { type: 'user_text', text: 'first' },
      reasoning('old'),
      { type: 'assistant_text', text: 'answer' },
      { type: 'user_text', text: 'second' },
      reasoning('new'),
      { type: 'tool_call', callId: 'c2', name: 'f', arguments: '{}' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: 'second' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'new',
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ]);
  });
});

describe('Gemini Interactions', () => {
  test('a call with invalid JSON is replayed with arguments {} and its failed result', () => {
    expect(historyToGeminiSteps(badCall)).toEqual([
      { type: 'user_input', content: [{ type: 'text', text: 'go' }] },
      { type: 'function_call', id: 'c1', name: 'get_weather', arguments: {} },
      {
        type: 'function_result',
        call_id: 'c1',
        name: 'get_weather',
        result: '{"error":"invalid JSON"}',
        is_error: true,
      },
    ]);
  });
});

describe('OpenAI Responses', () => {
  test('the raw arguments text is replayed as is, and other providers items are skipped', () => {
    expect(
      historyToResponsesInput([
        ...badCall,
        { type: 'provider_item', provider: 'anthropic', data: { type: 'thinking' } },
      ]),
    ).toEqual([
      { role: 'user', content: 'go' },
      { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"location": Paris}' },
      { type: 'function_call_output', call_id: 'c1', output: '{"error":"invalid JSON"}' },
    ]);
  });

  test.each(['gpt-4o', 'o3', 'my-served-reasoner'])(
    '%s: a first request asks for encrypted reasoning whatever the name (a refusal is retried without)',
    (model) => {
      const request = buildResponsesRequest({ model, history: [], tools: [] });
      expect(request.include).toEqual(['reasoning.encrypted_content']);
      expect('tools' in request).toBe(false);
    },
  );
});
