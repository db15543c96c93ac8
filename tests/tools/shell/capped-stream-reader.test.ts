import { describe, expect, test } from 'bun:test';
import { readCappedStream } from '../../../src/tools/shell/capped-stream-reader.ts';
import { createDroppedOutputCollector } from '../../../src/tools/shell/dropped-output-collector.ts';
import { nextTurn } from '../../helpers/wait-until.ts';

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
    let dropped = 0;
    const result = await readCappedStream(streamOf(chunks), cap, {
      noteDropped: (count) => {
        dropped += count;
      },
    }).result;
    expect([...result.bytes]).toEqual(kept);
    expect(result).toMatchObject({ totalBytes: total, truncated, ended: true });
    expect(dropped).toBe(total - kept.length);
  });

  test('an abandoned reading of a stream that never ends settles with what it read', async () => {
    const reading = readCappedStream(streamOf([[1, 2]], false), 10);
    await nextTurn();
    await reading.abandon();
    const result = await reading.result;
    expect([...result.bytes]).toEqual([1, 2]);
    expect(result.ended).toBe(false);
  });
});

describe('createDroppedOutputCollector', () => {
  test('collects once per interval of dropped bytes, counting across calls', () => {
    let collections = 0;
    const collector = createDroppedOutputCollector({
      collect: () => {
        collections += 1;
      },
      intervalBytes: 10,
      now: () => 0,
    });
    const expected: [number, number][] = [
      // dropped bytes, collections so far
      [4, 0],
      [5, 0],
      [1, 1],
      [9, 1],
      [25, 2],
      [10, 3],
    ];
    for (const [count, after] of expected) {
      collector.noteDropped(count);
      expect(collections).toBe(after);
    }
  });

  test('a drained stream far past the cap triggers collections, a capped one under it none', async () => {
    let collections = 0;
    const collector = createDroppedOutputCollector({
      collect: () => {
        collections += 1;
      },
      intervalBytes: 100,
      now: () => 0,
    });
    const chunks = Array.from({ length: 50 }, () => Array.from({ length: 10 }, () => 7));
    await readCappedStream(streamOf(chunks), 0, collector).result;
    expect(collections).toBe(5);
    await readCappedStream(streamOf(chunks), 500, collector).result;
    expect(collections).toBe(5);
  });

  test('a collection that took T ms is not followed by another for 4 T ms', () => {
    let clock = 0;
    const started: number[] = [];
    const collector = createDroppedOutputCollector({
      collect: () => {
        started.push(clock);
        clock += 10; // each collection takes 10 ms
      },
      intervalBytes: 1,
      now: () => clock,
    });
    // clock, bytes dropped: the first collection ends at 10, so none before 10 + 4 × 10 = 50.
    const steps: [number, number][] = [
      [0, 1],
      [20, 1],
      [49, 1],
      [50, 1],
    ];
    for (const [at, count] of steps) {
      clock = Math.max(clock, at);
      collector.noteDropped(count);
    }
    expect(started).toEqual([0, 50]);
  });
});
