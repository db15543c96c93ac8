/**
 * The finish events every adapter ends with: a reason the provider gave, with a message only where the
 * user would otherwise see a cut or empty answer, and the usage only when it is known.
 */
import { describe, expect, test } from 'bun:test';
import { finishForTruncatedStream, finishWithReason, makeUsage } from '../../src/providers/finish-events.ts';

const usage = { inputTokens: 12, outputTokens: 3 };

describe('finishWithReason', () => {
  test.each([
    ['stop', { type: 'finish', reason: 'stop', usage }],
    ['tool_calls', { type: 'finish', reason: 'tool_calls', usage }],
    ['length', { type: 'finish', reason: 'length', usage }],
    ['refusal', { type: 'finish', reason: 'refusal', message: 'The model refused the request.', usage }],
    [
      'content_filter',
      {
        type: 'finish',
        reason: 'content_filter',
        message: "The provider's content filter stopped the answer.",
        usage,
      },
    ],
  ] as const)('%s', (reason, expected) => {
    expect(finishWithReason(reason, usage)).toEqual(expected);
  });

  test("a content filter's own reason is named in the message", () => {
    expect(finishWithReason('content_filter', undefined, 'SAFETY')).toEqual({
      type: 'finish',
      reason: 'content_filter',
      message: "The provider's content filter stopped the answer (SAFETY).",
    });
  });

  test('unknown usage leaves the field out rather than writing undefined', () => {
    const event = finishWithReason('stop', makeUsage(undefined, null));
    expect(event).toEqual({ type: 'finish', reason: 'stop' });
    expect(Object.keys(event)).toEqual(['type', 'reason']);
  });
});

describe('finishForTruncatedStream', () => {
  test('a cut body is an error with usage so far; an aborted one is a cancel', () => {
    expect(finishForTruncatedStream(new AbortController().signal, usage)).toEqual({
      type: 'finish',
      reason: 'error',
      message: 'The provider stream ended before the response was complete.',
      usage,
    });
    const aborted = new AbortController();
    aborted.abort();
    expect(finishForTruncatedStream(aborted.signal, usage)).toEqual({ type: 'finish', reason: 'cancelled' });
  });
});
