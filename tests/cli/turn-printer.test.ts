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

describe('createTurnPrinter', () => {
  test('streams text, then shows each call and its result on their own lines', () => {
    expect(
      render([
        { type: 'text_delta', delta: 'Let me ' },
        { type: 'text_delta', delta: 'look.' },
        { type: 'tool_call_started', callId: 'a', name: 'grep' },
        { type: 'tool_call_arguments_delta', callId: 'a', delta: '{"pattern":"x"}' },
        { type: 'tool_call_completed', callId: 'a', name: 'grep', arguments: '{"pattern":"x"}' },
        { type: 'finish', reason: 'tool_calls' },
        { type: 'tool_result', callId: 'a', name: 'grep', durationMs: 12, ok: true, result: { matches: [] } },
        { type: 'text_delta', delta: 'Nothing found.' },
        { type: 'finish', reason: 'stop' },
        { type: 'done', reason: 'completed' },
      ]),
    ).toBe('Let me look.\n▸ grep {"pattern":"x"}\n  ✓ grep (12 ms) {"matches":[]}\nNothing found.\n');
  });

  test('failures, progress and an unfinished turn', () => {
    expect(
      render([
        { type: 'tool_call_completed', callId: 'a', name: 'generate_image', arguments: '' },
        { type: 'tool_progress', callId: 'a', name: 'generate_image', progress: { type: 'image', index: 1 } },
        {
          type: 'tool_result',
          callId: 'a',
          name: 'generate_image',
          durationMs: 30000,
          ok: false,
          error: { classification: 'timeout', message: 'ran out\nof time' },
        },
        { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
      ]),
    ).toBe(
      '▸ generate_image {}\n  … generate_image {"type":"image","index":1}\n' +
        '  ✗ generate_image (30000 ms) timeout: ran out of time\n[turn ended: cancelled — The turn was cancelled.]\n',
    );
  });

  test('long arguments are cut to one line', () => {
    const output = render([
      {
        type: 'tool_call_completed',
        callId: 'a',
        name: 'write_file',
        arguments: JSON.stringify({ content: 'y'.repeat(500) }),
      },
    ]);
    expect(output.length).toBeLessThan(230);
    expect(output).toEndWith('…\n');
  });
});
