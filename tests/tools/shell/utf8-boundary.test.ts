import { describe, expect, test } from 'bun:test';
import { completeUtf8PrefixLength } from '../../../src/tools/output/utf8-cap.ts';
import { decodeCapturedOutput } from '../../../src/tools/shell/utf8-boundary.ts';

const bytes = (...values: number[]) => new Uint8Array(values);

describe('completeUtf8PrefixLength', () => {
  const cases: [string, Uint8Array, number][] = [
    ['empty', bytes(), 0],
    ['ASCII', bytes(0x61, 0x62), 2],
    ['complete é', bytes(0x61, 0xc3, 0xa9), 3],
    ['é missing its continuation', bytes(0x61, 0xc3), 1],
    ['complete €', bytes(0xe2, 0x82, 0xac), 3],
    ['€ with 1 of 3 bytes', bytes(0x61, 0xe2), 1],
    ['€ with 2 of 3 bytes', bytes(0x61, 0xe2, 0x82), 1],
    ['complete 😀', bytes(0xf0, 0x9f, 0x98, 0x80), 4],
    ['😀 with 3 of 4 bytes', bytes(0x61, 0xf0, 0x9f, 0x98), 1],
    ['only a lone continuation byte', bytes(0x61, 0x80), 2],
    ['five continuation bytes: invalid, left to the decoder', bytes(0x80, 0x80, 0x80, 0x80, 0x80), 5],
  ];
  test.each(cases)('%s', (_label, input, expected) => {
    expect(completeUtf8PrefixLength(input)).toBe(expected);
  });
});

describe('decodeCapturedOutput', () => {
  test('a character cut at the cap is dropped', () => {
    expect(decodeCapturedOutput(bytes(0x61, 0xe2, 0x82), true)).toBe('a');
  });
  test('output that merely ends badly (not cut) keeps a replacement character', () => {
    expect(decodeCapturedOutput(bytes(0x61, 0xe2, 0x82), false)).toBe('a\uFFFD');
  });
});
