import { expect, test } from 'bun:test';
import {
  type BatchResult,
  packBatch,
  summarizeBatch,
  unpackBatch,
} from '../../../../src/tools/fs/grep/packed-outcome.ts';

const batch: BatchResult = {
  searched: 7,
  notable: [
    {
      file: '/w/a.ts',
      status: 'searched',
      matches: [
        { line: 1, text: 'first' },
        { line: 9, text: '' },
      ],
      more: true,
      unsearchedLines: [],
    },
    { file: '/w/big.bin', status: 'too_large', matches: [], more: false, unsearchedLines: [] },
    {
      file: '/w/ä/b.ts',
      status: 'searched',
      matches: [{ line: 3, text: 'ä — ok' }],
      more: false,
      unsearchedLines: [4, 8],
    },
    { file: '/w/c.bin', status: 'binary', matches: [], more: false, unsearchedLines: [] },
    { file: '/w/gone', status: 'unreadable', matches: [], more: false, unsearchedLines: [] },
    { file: '/w/slow.ts', status: 'searched', matches: [], more: false, unsearchedLines: [2] },
  ],
  searchedBefore: [0, 1, 1, 2, 2, 5],
};

test('a batch crosses as a few arrays and strings and comes back as it was, through a structured clone', () => {
  const packed = packBatch(batch);
  expect(Object.keys(packed).length).toBe(10);
  expect(packed.texts).toBe('first\n\nä — ok');
  expect([...packed.lines]).toEqual([1, 9, 3]);
  expect(unpackBatch(structuredClone(packed))).toEqual(batch);
});

test('an empty batch and one without matches', () => {
  const empty: BatchResult = { searched: 3, notable: [], searchedBefore: [] };
  expect(unpackBatch(structuredClone(packBatch(empty)))).toEqual(empty);
  const quiet: BatchResult = {
    searched: 0,
    notable: [{ file: '/w/x', status: 'unreadable', matches: [], more: false, unsearchedLines: [] }],
    searchedBefore: [0],
  };
  expect(unpackBatch(structuredClone(packBatch(quiet)))).toEqual(quiet);
});

test('a batch stops at the file whose matches pass the room left, and searches on while they only reach it', () => {
  const searched: string[] = [];
  const hits: Record<string, number> = { a: 2, b: 0, c: 1, d: 0, e: 3, f: 1 };
  const search = (file: string) => {
    searched.push(file);
    const matches = Array.from({ length: hits[file] ?? 0 }, (_, index) => ({ line: index + 1, text: file }));
    return { file, status: 'searched' as const, matches, more: false, unsearchedLines: [] };
  };
  const files = Object.keys(hits);
  // a and c make 3, the room: e proves there is more, and f is never opened.
  expect(summarizeBatch(files, search, 3).notable.map((outcome) => outcome.file)).toEqual(['a', 'c', 'e']);
  expect(searched).toEqual(['a', 'b', 'c', 'd', 'e']);
  searched.length = 0;
  expect(summarizeBatch(files, search, 0).searched).toBe(1);
  expect(searched).toEqual(['a']);
  searched.length = 0;
  expect(summarizeBatch(files, search).searched).toBe(6);
});
