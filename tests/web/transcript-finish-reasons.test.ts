/** The web transcript shows why a completed answer ended when it was not a plain answer, and retries. */
import { describe, expect, test } from 'bun:test';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import { applyTurnEvent, emptyTranscript } from '../../web/transcript.ts';

function fold(events: TurnStreamEvent[]) {
  const transcript = emptyTranscript();
  transcript.running = true;
  for (const event of events) applyTurnEvent(transcript, event);
  return transcript;
}

describe('applyTurnEvent: finish reasons on done', () => {
  test.each<[string, string, 'info' | 'error', string]>([
    [
      'refusal',
      'The model refused the request.',
      'info',
      'The model refused. The model refused the request.',
    ],
    [
      'content_filter',
      "The provider's content filter stopped the answer (SAFETY).",
      'error',
      "Stopped by the provider's content filter. The provider's content filter stopped the answer (SAFETY).",
    ],
    [
      'length',
      "The model's answer was cut at its output token limit.",
      'info',
      "The answer was cut at the output limit. The model's answer was cut at its output token limit.",
    ],
  ])(
    'a completed turn with finishReason %s keeps the answer and adds a notice',
    (finishReason, message, tone, text) => {
      const transcript = fold([
        { type: 'text_delta', delta: 'Answer' },
        { type: 'done', reason: 'completed', message, finishReason },
      ]);
      expect(transcript.entries).toEqual([
        { kind: 'assistant', text: 'Answer' },
        { kind: 'notice', tone, text },
      ]);
      expect(transcript.doneReason).toBe('completed');
      expect(transcript.running).toBe(false);
    },
  );

  test('a plain completed turn adds no notice; a provider retry adds one', () => {
    const transcript = fold([
      { type: 'provider_retry', attempt: 1, waitSeconds: 7 },
      { type: 'text_delta', delta: 'Hi' },
      { type: 'done', reason: 'completed' },
    ]);
    expect(transcript.entries).toEqual([
      { kind: 'notice', tone: 'info', text: 'The provider is busy; retrying in 7 s.' },
      { kind: 'assistant', text: 'Hi' },
    ]);
  });
});
