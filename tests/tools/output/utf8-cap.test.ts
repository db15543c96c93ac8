import { describe, expect, test } from 'bun:test';
import { capCharacters, capUtf8Bytes } from '../../../src/tools/output/utf8-cap.ts';

describe('capUtf8Bytes', () => {
  // [label, text, maxBytes, kept text, kept bytes, total bytes, cut]
  const cases: [string, string, number, string, number, number, boolean][] = [
    ['empty text', '', 10, '', 0, 0, false],
    ['empty text at a zero cap', '', 0, '', 0, 0, false],
    ['ASCII exactly at the cap', 'abcd', 4, 'abcd', 4, 4, false],
    ['ASCII one over the cap', 'abcde', 4, 'abcd', 4, 5, true],
    ['a zero cap keeps nothing', 'a', 0, '', 0, 1, true],
    ['é (2 bytes) exactly at the cap', 'aé', 3, 'aé', 3, 3, false],
    ['é split by the cap is dropped', 'aé', 2, 'a', 1, 3, true],
    ['€ (3 bytes) after 1 of its bytes', 'a€', 2, 'a', 1, 4, true],
    ['€ after 2 of its bytes', 'a€', 3, 'a', 1, 4, true],
    ['€ exactly at the cap', 'a€b', 4, 'a€', 4, 5, true],
    ['😀 (4 bytes) after 3 of its bytes', 'a😀', 4, 'a', 1, 5, true],
    ['😀 exactly at the cap', 'a😀', 5, 'a😀', 5, 5, false],
    ['multi-byte text one byte over', 'éé', 3, 'é', 2, 4, true],
  ];
  test.each(cases)('%s', (_label, text, maxBytes, keptText, keptBytes, totalBytes, cut) => {
    const capped = capUtf8Bytes(text, maxBytes);
    expect(capped).toEqual({ text: keptText, keptBytes, totalBytes, cut });
    expect(Buffer.byteLength(capped.text)).toBe(keptBytes);
    expect(capped.text).not.toContain('\uFFFD');
  });
});

describe('capCharacters', () => {
  const cases: [string, string, number, string, boolean][] = [
    ['empty text', '', 3, '', false],
    ['exactly at the cap', 'abc', 3, 'abc', false],
    ['one over the cap', 'abcd', 3, 'abc', true],
    ['a surrogate pair the cap would split is dropped whole', 'ab😀', 3, 'ab', true],
    ['a surrogate pair exactly at the cap', 'a😀', 3, 'a😀', false],
    ['a zero cap', 'a', 0, '', true],
  ];
  test.each(cases)('%s', (_label, text, maxCharacters, kept, cut) => {
    expect(capCharacters(text, maxCharacters)).toEqual({ text: kept, cut });
  });
});
