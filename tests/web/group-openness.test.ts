import { describe, expect, test } from 'bun:test';
import { createFoldStore, FOLD_STATE_KEY } from '../../web/fold-state.ts';
import { GroupOpenness } from '../../web/group-openness.ts';

function setup() {
  const values = new Map<string, string>();
  const storage = {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
  };
  return { values, openness: new GroupOpenness(createFoldStore(storage)) };
}

const system = { id: 'category:system', openByDefault: true };
const everything = { id: 'server:everything', openByDefault: false };

describe('GroupOpenness', () => {
  test('without a search: the defaults, then the stored choice of a click', () => {
    const { values, openness } = setup();
    expect(openness.isOpen(system, 3)).toBe(true);
    expect(openness.isOpen(everything, 13)).toBe(false);
    expect(openness.toggle(everything)).toBe(true);
    expect(openness.toggle(system)).toBe(false);
    expect(values.get(FOLD_STATE_KEY)).toBe('{"server:everything":true,"category:system":false}');
  });

  test('a search with matches opens a folded group; without matches it keeps the stored choice', () => {
    const { openness } = setup();
    openness.searchChanged(true);
    expect(openness.isOpen(everything, 1)).toBe(true);
    expect(openness.isOpen(system, 0)).toBe(true);
    openness.toggle(system);
    expect(openness.isOpen(system, 0)).toBe(false);
    openness.searchChanged(true);
    // A folded category with a match opens for the search.
    expect(openness.isOpen(system, 2)).toBe(true);
  });

  test('folding a group the search opened holds for that search only and stores nothing', () => {
    const { values, openness } = setup();
    openness.searchChanged(true);
    expect(openness.isOpen(everything, 1)).toBe(true);
    expect(openness.toggle(everything)).toBe(false);
    expect(openness.isOpen(everything, 1)).toBe(false);
    expect(openness.toggle(everything)).toBe(true);
    expect(openness.toggle(everything)).toBe(false);
    expect(values.has(FOLD_STATE_KEY)).toBe(false);
    // A new search opens it again; the search cleared, it is folded as stored (its default).
    openness.searchChanged(true);
    expect(openness.isOpen(everything, 1)).toBe(true);
    openness.searchChanged(false);
    expect(openness.isOpen(everything, 1)).toBe(false);
  });
});
