import { describe, expect, test } from 'bun:test';
import { CUT_MARKER_PATTERN } from '../../../src/tools/output/cut-marker.ts';
import {
  cutLine,
  excerptCutMarker,
  formatBytes,
  globCapNotice,
  grepCapNotice,
  lineCutMarker,
  MAX_LINE_CHARACTERS,
  readWindowNotice,
  resultBudgetMarker,
  shellOutputCapNotice,
} from '../../../src/tools/output/cut-notices.ts';

const window = { startLine: 1, endLine: 2000, totalLines: 2500, windowByteCap: 256 * 1024 };

describe('every notice is one cut marker with its tool-specific hint', () => {
  const cases: [string, string, string][] = [
    [
      'a cut line',
      lineCutMarker(2500),
      ' [cut: line of 2500 characters, first 2000 shown; read it whole with read_file view "hex" or "base64"]',
    ],
    [
      'a read window stopped at maxLines',
      readWindowNotice({ ...window, linesCut: false, byteCapReached: false }),
      '\n[cut: showing lines 1-2000 of 2500; to read on, call read_file with startLine 2001 (and maxLines up to 5000)]',
    ],
    [
      'a read window stopped at the byte cap, with cut lines',
      readWindowNotice({ ...window, linesCut: true, byteCapReached: true }),
      '\n[cut: showing lines 1-2000 of 2500 (the 256 KiB window cap was reached); to read on, call read_file with startLine 2001 (and maxLines up to 5000)]' +
        '\n[cut: lines longer than 2000 characters were cut; read such a file with view "hex" or "base64", or search it with grep]',
    ],
    [
      'a whole window with cut lines',
      readWindowNotice({ ...window, endLine: 2500, linesCut: true, byteCapReached: false }),
      '\n[cut: lines longer than 2000 characters were cut; read such a file with view "hex" or "base64", or search it with grep]',
    ],
    [
      'glob at maxResults',
      globCapNotice(50),
      '[cut: stopped at maxResults (50) matches; narrow the pattern or the cwd to see the rest]',
    ],
    [
      'grep at maxResults',
      grepCapNotice('maxResults', 7),
      '[cut: stopped at maxResults (7) matches; narrow the pattern, the path or the glob to see the rest]',
    ],
    [
      'grep at maxMatchesPerFile',
      grepCapNotice('maxMatchesPerFile', 3),
      '[cut: some files have more than maxMatchesPerFile (3) matching lines and only the first 3 of each are listed; search a single file with a narrower pattern to see the rest]',
    ],
    [
      'a shell stream at its cap',
      shellOutputCapNotice(1024),
      '[cut: output past 1024 bytes per stream (stdout, stderr) was dropped; to see the rest, filter it (head, tail, grep, wc) or redirect it to a file and read that with read_file]',
    ],
    [
      "a killed command's excerpt",
      excerptCutMarker(5000, 2000),
      ' [cut: 5000 characters, first 2000 shown; to see the rest, make the command finish sooner or redirect its output to a file and read that with read_file]',
    ],
    [
      'a result over its budget',
      resultBudgetMarker(3000, 700, 1000),
      '\n[cut: this tool result is 3000 bytes, over the 1000-byte limit for one result, and only the first 700 bytes are shown above; ask for less: a narrower path, pattern or glob, a lower maxResults or maxLines, or a startLine to continue where this stops]',
    ],
  ];
  test.each(cases)('%s', (_label, notice, expected) => {
    expect(notice).toBe(expected);
    expect(CUT_MARKER_PATTERN.test(notice)).toBe(true);
  });

  test('a read window with nothing cut has no notice', () => {
    expect(readWindowNotice({ ...window, endLine: 2500, linesCut: false, byteCapReached: false })).toBe('');
  });
});

describe('cutLine', () => {
  const cases: [string, string, string, boolean][] = [
    ['empty', '', '', false],
    ['exactly at the cap', 'x'.repeat(MAX_LINE_CHARACTERS), 'x'.repeat(MAX_LINE_CHARACTERS), false],
    [
      'one over the cap',
      'x'.repeat(MAX_LINE_CHARACTERS + 1),
      'x'.repeat(MAX_LINE_CHARACTERS) + lineCutMarker(MAX_LINE_CHARACTERS + 1),
      true,
    ],
    [
      'an emoji the cap would split is kept out whole',
      `${'x'.repeat(MAX_LINE_CHARACTERS - 1)}😀`,
      'x'.repeat(MAX_LINE_CHARACTERS - 1) + lineCutMarker(MAX_LINE_CHARACTERS + 1),
      true,
    ],
  ];
  test.each(cases)('%s', (_label, line, text, cut) => {
    expect(cutLine(line)).toEqual({ text, cut });
  });
});

describe('formatBytes', () => {
  const cases: [number, string][] = [
    [0, '0 bytes'],
    [1000, '1000 bytes'],
    [1024, '1 KiB'],
    [1536, '1536 bytes'],
    [256 * 1024, '256 KiB'],
    [1024 * 1024, '1 MiB'],
    [1536 * 1024 * 1024, '1536 MiB'],
    [2 * 1024 ** 3, '2 GiB'],
  ];
  test.each(cases)('%d is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
