/** `translateGeminiGenerateContentStream` on shapes the recordings do not show: safety stops, blocked prompts, other finish reasons. */
import { describe, expect, test } from 'bun:test';
import type { GenerateContentResponse } from '@google/genai';
import { translateGeminiGenerateContentStream } from '../../src/providers/gemini-generate-content-provider.ts';
import { collect } from './provider-test-support.ts';

async function* responses(items: unknown[]): AsyncGenerator<GenerateContentResponse> {
  for (const item of items) yield item as GenerateContentResponse;
}

const signal = new AbortController().signal;
const parts = (list: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts: list }, ...extra }],
});

function translate(items: unknown[]) {
  let next = 0;
  return collect(
    translateGeminiGenerateContentStream(responses(items), signal, { createCallId: () => `call_${++next}` }),
  );
}

describe('translateGeminiGenerateContentStream', () => {
  test('thought text is never shown; a thought without a signature is not kept', async () => {
    expect(
      await translate([
        parts([{ text: 'hmm', thought: true }]),
        parts([{ text: 'Hi.' }], { finishReason: 'STOP' }),
      ]),
    ).toEqual([
      { type: 'text_delta', delta: 'Hi.' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  test('SAFETY after some text finishes with content_filter; a call before it is not run', async () => {
    expect(
      await translate([
        parts([{ text: 'Part' }]),
        parts([{ functionCall: { name: 'get_weather', args: { location: 'x' } } }], {
          finishReason: 'SAFETY',
        }),
      ]),
    ).toEqual([
      { type: 'text_delta', delta: 'Part' },
      { type: 'tool_call_started', callId: 'call_1', name: 'get_weather' },
      { type: 'tool_call_arguments_delta', callId: 'call_1', delta: '{"location":"x"}' },
      {
        type: 'finish',
        reason: 'content_filter',
        message: "The provider's content filter stopped the answer (SAFETY).",
      },
    ]);
  });

  test('a blocked prompt (no candidates) finishes with content_filter naming the block reason', async () => {
    expect(
      await translate([
        { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 4 } },
      ]),
    ).toEqual([
      {
        type: 'finish',
        reason: 'content_filter',
        message: "The provider's content filter stopped the answer (prompt blocked: PROHIBITED_CONTENT).",
        usage: { inputTokens: 4 },
      },
    ]);
  });

  test('other finish reasons are errors with the reason and its message', async () => {
    expect(
      await translate([
        parts([], { finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'bad call syntax' }),
      ]),
    ).toEqual([
      {
        type: 'finish',
        reason: 'error',
        message: 'The model stopped with finish reason MALFORMED_FUNCTION_CALL: bad call syntax',
      },
    ]);
  });

  test('STOP while a streamed call is still open is an error; the call is never completed', async () => {
    const events = await translate([
      parts([{ functionCall: { name: 'get_weather', willContinue: true } }]),
      parts(
        [
          {
            functionCall: {
              partialArgs: [{ jsonPath: '$.location', stringValue: 'Pa' }],
              willContinue: true,
            },
          },
        ],
        {
          finishReason: 'STOP',
        },
      ),
    ]);
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'call_1', name: 'get_weather' },
      { type: 'finish', reason: 'error', message: 'The model stopped (STOP) in the middle of a call.' },
    ]);
  });

  test('the ids Gemini gives calls are kept and sent back', async () => {
    const events = await translate([
      parts([{ functionCall: { id: 'fc_1', name: 'list_places' } }], { finishReason: 'STOP' }),
    ]);
    expect(events).toEqual([
      { type: 'tool_call_started', callId: 'fc_1', name: 'list_places' },
      {
        type: 'tool_call_completed',
        callId: 'fc_1',
        name: 'list_places',
        arguments: '{}',
        providerData: { id: 'fc_1' },
      },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });
});
