/** The edit diff of an approval card: every line once, in order, with a longest common subsequence kept. */
import { describe, expect, test } from 'bun:test';
import { type DiffLine, diffCounts, lineDiff, splitLines } from '../../web/line-diff.ts';
import { createRandom } from '../helpers/seeded-random.ts';

const kept = (text: string): DiffLine => ({ kind: 'kept', text });
const removed = (text: string): DiffLine => ({ kind: 'removed', text });
const added = (text: string): DiffLine => ({ kind: 'added', text });

/** The two texts back from a diff: kept+removed is `before`, kept+added is `after`. */
function sides(lines: DiffLine[]): { before: string[]; after: string[] } {
  return {
    before: lines.filter((line) => line.kind !== 'added').map((line) => line.text),
    after: lines.filter((line) => line.kind !== 'removed').map((line) => line.text),
  };
}

/** The length of a longest common subsequence, computed the slow obvious way. */
function lcsLength(left: string[], right: string[]): number {
  let previous = new Array<number>(right.length + 1).fill(0);
  for (const item of left) {
    const current = [0];
    right.forEach((other, index) => {
      current.push(item === other ? previous[index]! + 1 : Math.max(previous[index + 1]!, current[index]!));
    });
    previous = current;
  }
  return previous[right.length]!;
}

describe('splitLines', () => {
  test('a final newline adds no empty line; an empty text has no lines; CR stays', () => {
    expect(splitLines('a\nb\n')).toEqual(['a', 'b']);
    expect(splitLines('a\n\nb')).toEqual(['a', '', 'b']);
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
    expect(splitLines('a\r\nb')).toEqual(['a\r', 'b']);
  });
});

describe('lineDiff', () => {
  test('one changed line among kept ones: the old line, then the new one', () => {
    expect(lineDiff('one\ntwo\nthree\n', 'one\nTWO\nthree\n')).toEqual([
      kept('one'),
      removed('two'),
      added('TWO'),
      kept('three'),
    ]);
  });

  test('insertions and deletions in the middle keep the lines between them', () => {
    expect(lineDiff('a\nb\nc\nd\ne', 'a\nc\nx\nd\ne\nf')).toEqual([
      kept('a'),
      removed('b'),
      kept('c'),
      added('x'),
      kept('d'),
      kept('e'),
      added('f'),
    ]);
  });

  test('from nothing, to nothing, and unchanged', () => {
    expect(lineDiff('', 'new\nlines')).toEqual([added('new'), added('lines')]);
    expect(lineDiff('old', '')).toEqual([removed('old')]);
    expect(lineDiff('same\ntext', 'same\ntext')).toEqual([kept('same'), kept('text')]);
  });

  test('over the cell limit the middle is all removed then all added, ends still matched', () => {
    const before = 'head\nb1\nb2\nb3\ntail';
    const after = 'head\nb2\nc1\ntail';
    expect(lineDiff(before, after, 4)).toEqual([
      kept('head'),
      removed('b1'),
      removed('b2'),
      removed('b3'),
      added('b2'),
      added('c1'),
      kept('tail'),
    ]);
    // Under the limit the shared b2 is kept.
    expect(lineDiff(before, after, 9)).toEqual([
      kept('head'),
      removed('b1'),
      kept('b2'),
      removed('b3'),
      added('c1'),
      kept('tail'),
    ]);
  });

  test('random texts: both sides come back exactly and the kept lines are a longest common subsequence', () => {
    const random = createRandom(20261201);
    for (let round = 0; round < 300; round += 1) {
      const alphabet = ['a', 'b', 'c', 'd', ''];
      const make = () => Array.from({ length: random.integer(0, 11) }, () => random.pick(alphabet));
      const left = make();
      const right = make();
      const before = left.map((line) => `${line}\n`).join('');
      const after = right.map((line) => `${line}\n`).join('');
      const lines = lineDiff(before, after);
      expect(sides(lines)).toEqual({ before: left, after: right });
      expect(lines.filter((line) => line.kind === 'kept').length).toBe(lcsLength(left, right));
    }
  });

  test('2,000 changed lines each side go past the cell limit and still come back exactly', () => {
    const left = Array.from({ length: 2000 }, (_, index) => `old ${index}`);
    const right = Array.from({ length: 2000 }, (_, index) => `new ${index}`);
    const lines = lineDiff(left.join('\n'), right.join('\n'));
    expect(diffCounts(lines)).toEqual({ removed: 2000, added: 2000 });
    expect(sides(lines)).toEqual({ before: left, after: right });
  });
});

describe('diffCounts', () => {
  test('counts removed and added lines, not kept ones', () => {
    expect(diffCounts([kept('a'), removed('b'), added('c'), added('d')])).toEqual({ removed: 1, added: 2 });
  });
});
