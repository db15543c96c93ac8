import { describe, expect, test } from 'bun:test';
import { InMemoryFreshnessLedger } from '../../../src/tools/freshness-ledger.ts';
import { mergeCoverage, recordRead } from '../../../src/tools/fs/freshness.ts';

describe('mergeCoverage', () => {
  const cases: [string, number, [number, number][], [number, number], number, [number, number][]][] = [
    ['extends the prefix', 10, [], [11, 20], 20, []],
    ['overlapping read extends the prefix', 10, [], [5, 30], 30, []],
    ['a later window is kept aside', 10, [], [50, 60], 10, [[50, 60]]],
    ['the gap filled joins everything', 10, [[50, 60]], [11, 49], 60, []],
    ['touching ranges merge', 0, [[5, 9]], [10, 12], 0, [[5, 12]]],
    [
      'disjoint ranges stay sorted',
      0,
      [[30, 40]],
      [5, 9],
      0,
      [
        [5, 9],
        [30, 40],
      ],
    ],
    ['an empty window (endLine before startLine) adds nothing', 3, [], [4, 3], 3, []],
    [
      'reads from line 1 after later ones absorb them',
      0,
      [
        [3, 3],
        [2, 2],
      ],
      [1, 1],
      3,
      [],
    ],
  ];
  test.each(cases)('%s', (_name, through, ranges, added, expectedThrough, expectedRanges) => {
    expect(mergeCoverage(through, ranges, added)).toEqual({
      coveredThrough: expectedThrough,
      coveredRanges: expectedRanges,
    });
  });
});

describe('recordRead', () => {
  const base = { path: '/f', sha256: 'a', size: 10, mtimeMs: 1, totalLines: 9, byteView: false };

  test('concurrent reads of one file keep every window', async () => {
    const ledger = new InMemoryFreshnessLedger();
    await Promise.all([
      recordRead(ledger, { ...base, startLine: 7, endLine: 9 }),
      recordRead(ledger, { ...base, startLine: 4, endLine: 6 }),
      recordRead(ledger, { ...base, startLine: 1, endLine: 3 }),
    ]);
    expect(await ledger.get('/f')).toEqual({
      path: '/f',
      sha256: 'a',
      size: 10,
      mtimeMs: 1,
      coveredThrough: 9,
      complete: true,
      totalLines: 9,
    });
  });

  test('a read of changed content starts over', async () => {
    const ledger = new InMemoryFreshnessLedger();
    await recordRead(ledger, { ...base, startLine: 5, endLine: 9 });
    await recordRead(ledger, { ...base, sha256: 'b', startLine: 1, endLine: 4 });
    expect(await ledger.get('/f')).toMatchObject({ sha256: 'b', coveredThrough: 4, complete: false });
    expect((await ledger.get('/f'))?.coveredRanges).toBeUndefined();
  });
});
