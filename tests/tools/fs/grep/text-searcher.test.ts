import { describe, expect, test } from 'bun:test';
import { analyzePattern } from '../../../../src/tools/fs/grep/analyze-pattern.ts';
import { compileGrepPattern } from '../../../../src/tools/fs/grep/compile-grep-pattern.ts';
import { createTextSearcher, type GrepMatcherSpec } from '../../../../src/tools/fs/grep/text-searcher.ts';

/** The reference semantics every engine must agree with: split by newline, test each line with new RegExp. */
function reference(pattern: string, caseInsensitive: boolean, text: string): number[] {
  const regex = new RegExp(pattern, caseInsensitive ? 'i' : '');
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  if (text === '') return [];
  return lines.flatMap((line, index) => (regex.test(line) ? [index + 1] : []));
}

const encode = (text: string) => new TextEncoder().encode(text);

const TEXT = [
  'foo',
  'foo\r',
  'the colour and color',
  'a\u00a0b  tab\there',
  'x = 42;',
  'ABC abc',
  'path a/b here',
  'word boundary',
  'wordy',
  '  indented, z',
  'line\u2028sep',
  'abc',
  '',
  '123 4567',
  'ſ long s',
  'la séparation',
  'une école',
].join('\n');

const PATTERNS: [string, boolean][] = [
  ['foo', false],
  ['foo$', false],
  ['^foo$', false],
  ['a.c', false],
  ['a.b', false],
  ['colou?r', false],
  ['\\s+', false],
  ['a\\sb', false],
  ['\\S+\\s\\S+', false],
  ['[\\s,]+z', false],
  ['\\w+\\s*=\\s*\\d+;', false],
  ['\\bword\\b', false],
  ['abc', true],
  ['ABC|wordy', false],
  ['\\u0041BC', false],
  ['a\\/b', false],
  ['(?<n>ab)c', false],
  ['\\d{2,3}', false],
  ['^$', false],
  ['line.sep', false],
  ['[^a-z]', false],
  ['S LONG', true],
  ['(\\w)\\1', false],
  ['wor(?=dy)', false],
  ['x{0}abc', false],
  ['sépar', false],
  ['ÉCOLE', true],
  ['é.', false],
  ['\\w+ \\d+', false],
  ['\\w+\\sb', false],
  ['(c|t)ab\\w', false],
  ['\\bé\\w*', false],
  ['\\w+\\s*=\\s*\\d+;', true],
  ['^\\s*indent\\w+', false],
];

describe('every engine agrees with the per-line reference', () => {
  test.each(PATTERNS)('%s (caseInsensitive %p)', (pattern, caseInsensitive) => {
    const spec = compileGrepPattern(pattern, caseInsensitive);
    const expected = reference(pattern, caseInsensitive, TEXT);
    const found = createTextSearcher(spec)(encode(TEXT), 1000).matches.map((match) => match.line);
    expect(found).toEqual(expected);
    // The worker-side searcher (guarded JavaScript scan of the anchored suffix for re2 patterns) too.
    expect(
      createTextSearcher(spec, { offMainThread: true })(encode(TEXT), 1000).matches.map(
        (match) => match.line,
      ),
    ).toEqual(expected);
    // The javascript engine (worker-only in production) must agree too.
    const javascript: GrepMatcherSpec = { ...spec, engine: 'javascript' };
    expect(createTextSearcher(javascript)(encode(TEXT), 1000).matches.map((match) => match.line)).toEqual(
      expected,
    );
  });
});

describe('engine choice', () => {
  test.each([
    ['function', 'literal'],
    ['ERROR|WARN', 'literal'],
    ['\\w+\\s*=\\s*\\d+;', 're2'],
    ['(a+)+$', 're2'],
    ['(a+)+c|!', 're2'],
    ['(\\w)\\1', 'javascript'],
    ['foo(?=bar)', 'javascript'],
    ['(?<!x)y', 'javascript'],
    ['[^]', 'javascript'],
    ['a{1001}', 'javascript'],
  ])('%s runs on %s', (pattern, engine) => {
    expect(compileGrepPattern(pattern, false).engine).toBe(engine as GrepMatcherSpec['engine']);
  });

  test.each([
    ['function', true, ['function']],
    ['ERROR|WARN', true, ['ERROR', 'WARN']],
    ['colou?r', false, ['colo']],
    ['ab+c', false, ['ab']],
    ['x\\.y', true, ['x.y']],
    ['foo|', false, null],
    ['(a)b', false, ['b']],
  ])('%s: pureLiteral %p, required literals %j', (pattern, pureLiteral, literals) => {
    const analysis = analyzePattern(pattern);
    expect(analysis.pureLiteral).toBe(pureLiteral);
    expect(analysis.requiredLiterals).toEqual(literals);
  });

  test.each([
    ['\\w+\\s*=\\s*\\d+;', '=\\s*\\d+;'],
    ['struct \\w+_node', 'struct \\w+_node'],
    ['\\w+_node\\b', '_node\\b'],
    ['\\d+\\.\\d+', '\\.\\d+'],
    ['x{0}abc\\d', 'abc\\d'],
    ['(a)b+c', 'b+c'],
    ['^\\s*import (\\w+) from', 'import (\\w+) from'],
    ['colou?r\\d', 'colou?r\\d'],
    ['a|bc\\d', null],
    ['\\w+\\d', null],
    ['(\\w)x\\1', null],
  ])('%s: anchored suffix %p', (pattern, suffix) => {
    expect(analyzePattern(pattern).anchoredSuffix).toBe(suffix);
  });
});

describe('caps and line numbers', () => {
  const many = Array.from({ length: 50 }, (_, index) => (index % 2 === 0 ? `hit ${index}` : 'miss')).join(
    '\n',
  );
  test.each([['hit'], ['h.t'], ['(h)(?=it)']])('%s: maxMatches stops the file and sets more', (pattern) => {
    const spec = compileGrepPattern(pattern, false);
    const result = createTextSearcher({ ...spec })(encode(many), 3);
    expect(result.matches).toEqual([
      { line: 1, text: 'hit 0' },
      { line: 3, text: 'hit 2' },
      { line: 5, text: 'hit 4' },
    ]);
    expect(result.more).toBe(true);
  });
});

describe('lookaround across a line break', () => {
  test.each([['b(?!\\n)'], ['(?<!a\\n)b']])('%s is judged on the line alone', (pattern) => {
    const spec = compileGrepPattern(pattern, false);
    expect(spec.engine).toBe('javascript');
    expect(createTextSearcher(spec)(encode('a\nb\n'), 10).matches).toEqual([{ line: 2, text: 'b' }]);
  });
});

describe('the worker-side guarded scan falls back to RE2 when JavaScript gives up', () => {
  test('(a+)+c|! finds the ! line although JavaScriptCore gives up on it', () => {
    const spec = compileGrepPattern('(a+)+c|!', false);
    expect(spec.engine).toBe('re2');
    const result = createTextSearcher(spec, { offMainThread: true })(
      encode(`x\n${'a'.repeat(26)}!\ny\n`),
      10,
    );
    expect(result.matches).toEqual([{ line: 2, text: `${'a'.repeat(26)}!` }]);
    expect(result.unsearchedLines).toEqual([]);
  }, 20_000);
});

describe('byte-level search agrees with the per-line reference', () => {
  // Hits at offset 0, CRLF line ends, multibyte UTF-8 (2-, 3- and 4-byte), several hits on one line,
  // an invalid UTF-8 byte, and a last line without a newline.
  const BYTES_TEXT = [
    'needle at the start',
    'crlf needle\r',
    'naïve café needle needle',
    '',
    'ÉCOLE école Straße STRASSE',
    '日本語のneedle 😀 emoji',
    'ñ needleñ',
    '\r',
    'Needle NEEDLE nEEdle',
    'x = 42;\r',
    'ends with needle',
  ].join('\n');
  const CASES: [string, boolean][] = [
    ['needle', false],
    ['needle', true],
    ['needle\r', false],
    ['café', false],
    ['CAFÉ', true],
    ['école', true],
    ['日本語', false],
    ['😀', false],
    ['needleñ', false],
    ['Straße', true],
    ['e n', false],
    ['x = 42;', false],
    ['needle|école', false],
    ['NEEDLE|café', true],
    ['ne+dle', false],
    ['ne+dle\\b', true],
    ['\\w+ = \\d+;', false],
    ['é\\w*', true],
    ['needle$', false],
  ];
  test.each(CASES)('%s (caseInsensitive %p)', (pattern, caseInsensitive) => {
    const spec = compileGrepPattern(pattern, caseInsensitive);
    const bytes = encode(BYTES_TEXT);
    const expected = reference(pattern, caseInsensitive, BYTES_TEXT);
    const lines = BYTES_TEXT.split('\n');
    for (const offMainThread of [false, true]) {
      const result = createTextSearcher(spec, { offMainThread })(bytes, 1000);
      expect(result.matches).toEqual(expected.map((line) => ({ line, text: lines[line - 1]! })));
    }
    // With an invalid byte in front, line numbers and texts of the other lines stay the same.
    const withInvalid = new Uint8Array([0xff, 0x0a, ...bytes]);
    const shifted = createTextSearcher(spec)(withInvalid, 1000).matches.filter((match) => match.line > 1);
    expect(shifted).toEqual(expected.map((line) => ({ line: line + 1, text: lines[line - 1]! })));
  });

  test('a literal hit on the last line without a newline and maxMatches', () => {
    const spec = compileGrepPattern('needle', false);
    expect(createTextSearcher(spec)(encode('needle'), 10).matches).toEqual([{ line: 1, text: 'needle' }]);
    const result = createTextSearcher(spec)(encode('a\nneedle\nb needle\nneedle'), 2);
    expect(result.matches).toEqual([
      { line: 2, text: 'needle' },
      { line: 3, text: 'b needle' },
    ]);
    expect(result.more).toBe(true);
  });
});
