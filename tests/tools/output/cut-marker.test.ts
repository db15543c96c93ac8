import { describe, expect, test } from 'bun:test';
import { CUT_MARKER_PATTERN, cutMarker } from '../../../src/tools/output/cut-marker.ts';

describe('cutMarker', () => {
  test('states what was cut, then how to get the rest', () => {
    expect(cutMarker('showing lines 1-10 of 20', 'to read on, call read_file with startLine 11')).toBe(
      '[cut: showing lines 1-10 of 20; to read on, call read_file with startLine 11]',
    );
  });

  test('every marker it makes matches CUT_MARKER_PATTERN', () => {
    expect(CUT_MARKER_PATTERN.test(cutMarker('a', 'b'))).toBe(true);
    expect(CUT_MARKER_PATTERN.test(cutMarker('3 of 4 (a, b)', 'x; y'))).toBe(true);
  });

  const invalid: [string, string, string, string][] = [
    ['an empty what', '', 'rest', `A cut marker's "what" must be non-empty without ";" or "]"; got "".`],
    ['";" in what', 'a;b', 'rest', `A cut marker's "what" must be non-empty without ";" or "]"; got "a;b".`],
    ['"]" in what', 'a]', 'rest', `A cut marker's "what" must be non-empty without ";" or "]"; got "a]".`],
    ['an empty rest', 'what', '', `A cut marker's "rest" must be non-empty without "]"; got "".`],
    ['"]" in rest', 'what', 'see [x]', `A cut marker's "rest" must be non-empty without "]"; got "see [x]".`],
  ];
  test.each(invalid)('refuses %s', (_label, what, rest, message) => {
    expect(() => cutMarker(what, rest)).toThrow(message);
  });

  test('the pattern does not match older or free-form wording', () => {
    for (const text of [
      '[truncated] Showing lines',
      '… [line cut: 5 characters]',
      'Stopped at maxResults (2)',
    ]) {
      expect(CUT_MARKER_PATTERN.test(text)).toBe(false);
    }
  });
});
