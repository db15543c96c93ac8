import { describe, expect, test } from 'bun:test';
import { findImportCycles } from '../../../scripts/layers/import-cycles.ts';
import type { ImportEdge } from '../../../scripts/layers/import-graph.ts';

const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });

describe('findImportCycles', () => {
  test('an acyclic graph has none', () => {
    expect(findImportCycles(['a', 'b', 'c'], [edge('a', 'b'), edge('b', 'c'), edge('a', 'c')])).toEqual([]);
  });

  test('a self-import is a cycle of one file', () => {
    expect(findImportCycles(['a'], [edge('a', 'a')])).toEqual([
      { files: ['a'], typeOnly: false, componentSize: 1 },
    ]);
  });

  test('one shortest cycle per tangle, from its first file, with the tangle size', () => {
    // a → b → c → d → a, and a shortcut c → a: the shortest cycle through a is a → b → c.
    const cycles = findImportCycles(
      ['a', 'b', 'c', 'd'],
      [edge('a', 'b'), edge('b', 'c'), edge('c', 'd'), edge('d', 'a'), edge('c', 'a')],
    );
    expect(cycles).toEqual([{ files: ['a', 'b', 'c'], typeOnly: false, componentSize: 4 }]);
  });

  test('separate tangles are reported separately, sorted by first file', () => {
    const cycles = findImportCycles(
      ['x', 'y', 'm', 'n', 'lone'],
      [edge('y', 'x'), edge('x', 'y', true), edge('n', 'm'), edge('m', 'n'), edge('lone', 'm')],
    );
    expect(cycles).toEqual([
      { files: ['m', 'n'], typeOnly: false, componentSize: 2 },
      { files: ['x', 'y'], typeOnly: true, componentSize: 2 },
    ]);
  });

  test('a long chain does not overflow the stack', () => {
    const files = Array.from({ length: 50_000 }, (_, i) => `f${String(i).padStart(5, '0')}`);
    const edges = files.map((file, i) => edge(file, files[(i + 1) % files.length] as string));
    const [cycle] = findImportCycles(files, edges);
    expect(cycle?.files.length).toBe(50_000);
    expect(cycle?.componentSize).toBe(50_000);
  });
});
