/**
 * The waits every test goes through: `waitUntil` returns at the first look where its condition holds,
 * or false once its deadline passed; `holdsFor` looks for its whole time and returns false at the first
 * look where its condition broke, without looking again.
 */
import { describe, expect, test } from 'bun:test';
import { holdsFor, waitUntil } from '../helpers/wait-until.ts';

/** A condition that is true for its first `trueLooks` looks, and counts them all. */
function counted(trueLooks: number) {
  const state = { looks: 0 };
  return { state, condition: () => ++state.looks <= trueLooks };
}

describe('waitUntil', () => {
  test('returns true at the first look where the condition holds', async () => {
    let looks = 0;
    expect(await waitUntil(() => ++looks === 3, 10_000, 1)).toBe(true);
    expect(looks).toBe(3);
  });

  test('returns false once the deadline passed, having looked once more at the end', async () => {
    let looks = 0;
    const startedAt = performance.now();
    expect(await waitUntil(() => ++looks < 0, 50)).toBe(false);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(50);
    expect(looks).toBeGreaterThanOrEqual(2);
  });
});

describe('holdsFor', () => {
  test('returns true when the condition held at every look of the whole time', async () => {
    const { state, condition } = counted(Number.POSITIVE_INFINITY);
    const startedAt = performance.now();
    expect(await holdsFor(condition, 60)).toBe(true);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(60);
    expect(state.looks).toBeGreaterThanOrEqual(2);
  });

  test('returns false at the first look where the condition broke, and looks no more', async () => {
    const { state, condition } = counted(2);
    expect(await holdsFor(condition, 10_000)).toBe(false);
    expect(state.looks).toBe(3);
  });

  test('an asynchronous condition is awaited', async () => {
    expect(await holdsFor(async () => false, 10_000)).toBe(false);
    expect(await holdsFor(async () => true, 30)).toBe(true);
  });
});
