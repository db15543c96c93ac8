import { describe, expect, test } from 'bun:test';
import { PartialArguments, parseJsonPath } from '../../src/providers/gemini-partial-args.ts';

describe('parseJsonPath', () => {
  test.each<[string, (string | number)[] | undefined]>([
    ['$.location', ['location']],
    ['$.filter.tags[0]', ['filter', 'tags', 0]],
    ["$['odd key'].x", ['odd key', 'x']],
    ['$["quoted \\"key\\""]', ['quoted "key"']],
    ['$', []],
    ['location', undefined],
    ['$.a..b', undefined],
    ['$[x]', undefined],
  ])('%s', (path, expected) => {
    expect(parseJsonPath(path)).toEqual(expected);
  });
});

describe('PartialArguments', () => {
  test('continued strings are concatenated; numbers, booleans and null are set; nested paths are created', () => {
    const partial = new PartialArguments();
    partial.apply({ jsonPath: '$.city', stringValue: 'San ', willContinue: true });
    partial.apply({ jsonPath: '$.city', stringValue: 'Francisco' });
    partial.apply({ jsonPath: '$.days', numberValue: 3 });
    partial.apply({ jsonPath: '$.options.metric', boolValue: true });
    partial.apply({ jsonPath: '$.options.note', nullValue: 'NULL_VALUE' });
    partial.apply({ jsonPath: '$.stops[0].name', stringValue: 'Lyon' });
    expect(partial.args).toEqual({
      city: 'San Francisco',
      days: 3,
      options: { metric: true, note: null },
      stops: [{ name: 'Lyon' }],
    });
    expect(partial.problem).toBeUndefined();
  });

  test('an unreadable path or a piece without a value is reported, never guessed at', () => {
    const partial = new PartialArguments();
    partial.apply({ jsonPath: 'city', stringValue: 'x' });
    partial.apply({ jsonPath: '$.y' });
    expect(partial.args).toEqual({});
    expect(partial.problem).toBe('Unreadable streamed argument at path "city".');
  });
});
