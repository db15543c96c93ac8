import { describe, expect, test } from 'bun:test';
import { createSseParser, type TurnStreamEvent } from '../../web/sse-parser.ts';

function parseAll(chunks: (string | Uint8Array)[]): TurnStreamEvent[] {
  const events: TurnStreamEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

describe('createSseParser', () => {
  test('one event per data line block, in order', () => {
    expect(
      parseAll([
        'data: {"type":"text_delta","delta":"Hi"}\n\ndata: {"type":"done","reason":"completed"}\n\n',
      ]),
    ).toEqual([
      { type: 'text_delta', delta: 'Hi' },
      { type: 'done', reason: 'completed' },
    ]);
  });

  test('chunks split anywhere, including inside a UTF-8 sequence and a CRLF pair', () => {
    const bytes = new TextEncoder().encode('data: {"type":"text_delta","delta":"olá ☂"}\r\n\r\n');
    const chunks: Uint8Array[] = [];
    for (let index = 0; index < bytes.length; index += 3) chunks.push(bytes.slice(index, index + 3));
    expect(parseAll(chunks)).toEqual([{ type: 'text_delta', delta: 'olá ☂' }]);
  });

  test.each([
    [
      'comment lines and event/id fields are ignored',
      ': keep-alive\nevent: x\nid: 3\ndata: {"type":"finish"}\n\n',
      [{ type: 'finish' }],
    ],
    ['non-JSON data is ignored', 'data: hello\n\n', []],
    ['JSON without a type is ignored', 'data: {"delta":"x"}\n\n', []],
    ['a final event without the blank line is flushed at end', 'data: {"type":"done"}', [{ type: 'done' }]],
    ['"data:" without a space is accepted', 'data:{"type":"done"}\n\n', [{ type: 'done' }]],
  ])('%s', (_name, input, expected) => {
    expect(parseAll([input])).toEqual(expected);
  });
});
