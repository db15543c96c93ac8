import { describe, expect, test } from 'bun:test';
import { InMemoryFreshnessLedger } from '../../../src/tools/freshness-ledger.ts';
import { createStagedLedger, mergeObservations } from '../../../src/tools/fs/staged-ledger.ts';

const base = { path: '/f', sha256: 'a', size: 10, mtimeMs: 1, coveredThrough: 0, complete: false };

describe('mergeObservations', () => {
  test('same content pools coverage; complete drops the ranges', () => {
    expect(
      mergeObservations(
        { ...base, coveredThrough: 3, coveredRanges: [[7, 8]] },
        { ...base, coveredThrough: 0, coveredRanges: [[4, 5]] },
      ),
    ).toEqual({ ...base, coveredThrough: 5, coveredRanges: [[7, 8]] });
    expect(
      mergeObservations(
        { ...base, coveredThrough: 3, coveredRanges: [[7, 8]] },
        { ...base, coveredThrough: 9, complete: true },
      ),
    ).toEqual({
      ...base,
      coveredThrough: 9,
      complete: true,
    });
  });

  test('partial reads recorded without each other (concurrent calls) that together cover the file are complete', () => {
    // Lines 1–2 were committed; a concurrent read of line 3 saw neither and staged [3, 3] alone.
    expect(
      mergeObservations(
        { ...base, coveredThrough: 2, totalLines: 3 },
        { ...base, coveredThrough: 0, coveredRanges: [[3, 3]], totalLines: 3 },
      ),
    ).toEqual({ ...base, coveredThrough: 3, complete: true, totalLines: 3 });
    // Without a known line count the merge cannot tell, and stays partial.
    expect(
      mergeObservations(
        { ...base, coveredThrough: 2 },
        { ...base, coveredThrough: 0, coveredRanges: [[3, 3]] },
      ),
    ).toEqual({ ...base, coveredThrough: 3 });
  });

  test('different content replaces', () => {
    expect(
      mergeObservations(
        { ...base, coveredThrough: 9, complete: true },
        { ...base, sha256: 'b', coveredThrough: 2 },
      ),
    ).toEqual({
      ...base,
      sha256: 'b',
      coveredThrough: 2,
    });
  });
});

describe('createStagedLedger', () => {
  test('nothing reaches the underlying ledger before commit; the call sees its own puts', async () => {
    const underlying = new InMemoryFreshnessLedger();
    const staged = createStagedLedger(underlying);
    await staged.put({ ...base, coveredThrough: 2 });
    expect(await staged.get('/f')).toEqual({ ...base, coveredThrough: 2 });
    expect(await underlying.get('/f')).toBeUndefined();
    await staged.commit();
    expect(await underlying.get('/f')).toEqual({ ...base, coveredThrough: 2 });
  });

  test('a staged delete is applied on commit only', async () => {
    const underlying = new InMemoryFreshnessLedger();
    await underlying.put(base);
    const staged = createStagedLedger(underlying);
    await staged.delete('/f');
    expect(await staged.get('/f')).toBeUndefined();
    expect(await underlying.get('/f')).toEqual(base);
    await staged.commit();
    expect(await underlying.get('/f')).toBeUndefined();
  });
});
