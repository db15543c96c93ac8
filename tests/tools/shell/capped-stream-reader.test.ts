import { describe, expect, test } from 'bun:test';
import { readCappedStream } from '../../../src/tools/shell/capped-stream-reader.ts';

function streamOf(chunks: number[][], endAfter = true): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new Uint8Array(chunk));
      if (endAfter) controller.close();
    },
  });
}

describe('readCappedStream', () => {
  const cases: [string, number[][], number, number[], number, boolean][] = [
    // label, chunks, cap, kept bytes, total, truncated
    ['under the cap', [[1, 2], [3]], 5, [1, 2, 3], 3, false],
    ['exactly the cap', [[1, 2], [3]], 3, [1, 2, 3], 3, false],
    [
      'cut inside a chunk',
      [
        [1, 2],
        [3, 4, 5],
      ],
      3,
      [1, 2, 3],
      5,
      true,
    ],
    ['chunks after the cap are counted and dropped', [[1, 2, 3], [4], [5, 6]], 3, [1, 2, 3], 6, true],
    ['a zero cap keeps nothing', [[1]], 0, [], 1, true],
    ['an empty stream', [], 4, [], 0, false],
  ];
  test.each(cases)('%s', async (_label, chunks, cap, kept, total, truncated) => {
    const result = await readCappedStream(streamOf(chunks), cap).result;
    expect([...result.bytes]).toEqual(kept);
    expect(result).toMatchObject({ totalBytes: total, truncated, ended: true });
  });

  test('an abandoned reading of a stream that never ends settles with what it read', async () => {
    const reading = readCappedStream(streamOf([[1, 2]], false), 10);
    await Bun.sleep(0);
    await reading.abandon();
    const result = await reading.result;
    expect([...result.bytes]).toEqual([1, 2]);
    expect(result.ended).toBe(false);
  });
});
