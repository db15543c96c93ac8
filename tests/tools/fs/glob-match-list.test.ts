import { expect, test } from 'bun:test';
import { GlobMatchCollector, GlobMatchList } from '../../../src/tools/fs/glob-match-list.ts';

test('a walk collects each directory once, then its matches, and the list spells them as paths', () => {
  const collector = new GlobMatchCollector();
  collector.add('', 'a.ts');
  collector.add('', 'b.ts');
  collector.add('src/lib', 'c.ts');
  collector.add('src', 'd.ts');
  expect(collector.count).toBe(4);
  expect(collector.text()).toBe('/\0a.ts\0b.ts\0/src/lib\0c.ts\0/src\0d.ts');
  const list = new GlobMatchList('/w', [collector.text()], collector.count);
  expect(list.paths()).toEqual(['/w/a.ts', '/w/b.ts', '/w/src/lib/c.ts', '/w/src/d.ts']);
  // Runs from several walks (glob's threads) are put together in order; empty ones add nothing.
  const joined = new GlobMatchList('/w', ['', collector.text(), '/x\0e'], 5);
  expect(joined.text()).toBe(`${collector.text()}\0/x\0e`);
  expect(joined.paths().at(-1)).toBe('/w/x/e');
});

test('from paths, and from `/`', () => {
  const list = GlobMatchList.fromPaths('/', ['/a', '/b/c', '/b/d']);
  expect(list.text()).toBe('/\0a\0/b\0c\0d');
  expect(list.paths()).toEqual(['/a', '/b/c', '/b/d']);
  expect(new GlobMatchList('/w', [], 0).paths()).toEqual([]);
  expect(new GlobMatchList('/w', [], 0).text()).toBe('');
});
