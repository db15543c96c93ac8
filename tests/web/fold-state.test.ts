import { describe, expect, test } from 'bun:test';
import { createFoldStore, FOLD_STATE_KEY } from '../../web/fold-state.ts';

function memoryStorage(initial?: string) {
  const values = new Map<string, string>();
  if (initial !== undefined) values.set(FOLD_STATE_KEY, initial);
  return {
    values,
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
  };
}

describe('createFoldStore', () => {
  test('defaults until the user chooses; a choice is stored and read back by a new store', () => {
    const storage = memoryStorage();
    const store = createFoldStore(storage);
    expect(store.isOpen('category:system', true)).toBe(true);
    expect(store.isOpen('server:everything', false)).toBe(false);
    store.setOpen('category:system', false);
    store.setOpen('server:everything', true);
    expect(storage.values.get(FOLD_STATE_KEY)).toBe('{"category:system":false,"server:everything":true}');
    const reloaded = createFoldStore(storage);
    expect(reloaded.isOpen('category:system', true)).toBe(false);
    expect(reloaded.isOpen('server:everything', false)).toBe(true);
    expect(reloaded.isOpen('server:other', false)).toBe(false);
  });

  test.each([['not json'], ['[true]'], ['null'], ['"open"']])('a stored %p is set aside', (stored) => {
    const storage = memoryStorage(stored);
    const store = createFoldStore(storage);
    expect(store.isOpen('category:system', true)).toBe(true);
    store.setOpen('category:system', false);
    expect(storage.values.get(FOLD_STATE_KEY)).toBe('{"category:system":false}');
  });

  test('values that are not booleans are dropped, the others kept', () => {
    const store = createFoldStore(memoryStorage('{"a":false,"b":"yes","c":1}'));
    expect(store.isOpen('a', true)).toBe(false);
    expect(store.isOpen('b', true)).toBe(true);
    expect(store.isOpen('c', false)).toBe(false);
  });

  test('a storage that refuses to write keeps the choice for the page', () => {
    const store = createFoldStore({
      getItem: () => null,
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
    });
    store.setOpen('a', true);
    expect(store.isOpen('a', false)).toBe(true);
  });
});
