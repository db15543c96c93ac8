/** `mango chat` shows why a completed answer ended when it was not a plain answer, and provider retries. */
import { describe, expect, test } from 'bun:test';
import { createTurnPrinter } from '../../src/cli/turn-printer.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';

function render(events: TurnEvent[]): string {
  let output = '';
  const print = createTurnPrinter((text) => {
    output += text;
  });
  for (const event of events) print(event);
  return output;
}

describe('createTurnPrinter: finish reasons and retries', () => {
  test('a refusal: the text, then the reason on its own line', () => {
    expect(
      render([
        { type: 'text_delta', delta: "I can't help with that." },
        { type: 'finish', reason: 'refusal', message: 'The model refused the request.' },
        {
          type: 'done',
          reason: 'completed',
          message: 'The model refused the request.',
          finishReason: 'refusal',
        },
      ]),
    ).toBe("I can't help with that.\n[the model refused — The model refused the request.]\n");
  });

  test('the content filter and a cut answer', () => {
    expect(
      render([
        { type: 'text_delta', delta: 'Part\n' },
        {
          type: 'done',
          reason: 'completed',
          message: "The provider's content filter stopped the answer (SAFETY).",
          finishReason: 'content_filter',
        },
      ]),
    ).toBe(
      "Part\n[stopped by the content filter — The provider's content filter stopped the answer (SAFETY).]\n",
    );
    expect(render([{ type: 'done', reason: 'completed', finishReason: 'length' }])).toBe(
      '[answer cut at the output limit]\n',
    );
  });

  test('a provider retry is announced with its wait', () => {
    expect(
      render([
        { type: 'provider_retry', attempt: 1, waitSeconds: 7 },
        { type: 'text_delta', delta: 'Hi' },
        { type: 'done', reason: 'completed' },
      ]),
    ).toBe('[provider busy: retry 1 in 7 s]\nHi\n');
  });
});
