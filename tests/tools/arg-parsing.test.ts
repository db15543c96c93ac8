import { describe, expect, test } from 'bun:test';
import {
  clampIntegerSetting,
  getBooleanSetting,
  getEnabledPathListSetting,
  getStringListSetting,
  getStringSetting,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  optionalNumber,
  optionalString,
  optionalStringArray,
  readArgumentsObject,
  requireInteger,
  requireString,
} from '../../src/tools/arg-parsing.ts';
import { ToolArgumentError } from '../../src/tools/errors.ts';

function argumentError(run: () => unknown): ToolArgumentError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolArgumentError) return error;
    throw error;
  }
  throw new Error('expected a ToolArgumentError');
}

type Reader = (args: Record<string, unknown>, name: string) => unknown;
const optionalReaders: [string, Reader, unknown, unknown, string][] = [
  ['optionalString', optionalString, 'abc', 42, 'Argument "x" must be a string, got number 42.'],
  ['optionalInteger', optionalInteger, 7, 7.5, 'Argument "x" must be an integer, got number 7.5.'],
  ['optionalInteger', optionalInteger, 7, '7', 'Argument "x" must be an integer, got the string "7".'],
  [
    'optionalNumber',
    optionalNumber,
    1.5,
    '1.5',
    'Argument "x" must be a finite number, got the string "1.5".',
  ],
  [
    'optionalBoolean',
    optionalBoolean,
    false,
    'true',
    'Argument "x" must be a boolean (true or false, not a string), got the string "true".',
  ],
  [
    'optionalEnum',
    (args, name) => optionalEnum(args, name, ['a', 'b']),
    'b',
    1,
    'Argument "x" must be one of "a", "b", got number 1.',
  ],
  [
    'optionalStringArray',
    optionalStringArray,
    ['a'],
    'a',
    'Argument "x" must be an array of strings, got the string "a".',
  ],
  [
    'optionalStringArray',
    optionalStringArray,
    ['a'],
    ['a', 2],
    'Argument "x[1]" must be a string, got number 2.',
  ],
];

describe.each(optionalReaders)('%s', (_name, read, good, bad, message) => {
  test('absent and null read as undefined', () => {
    expect(read({}, 'x')).toBeUndefined();
    expect(read({ x: null }, 'x')).toBeUndefined();
  });
  test('a valid value is returned', () => {
    expect(read({ x: good }, 'x')).toEqual(good);
  });
  test('a wrong type is a ToolArgumentError, never a default', () => {
    const error = argumentError(() => read({ x: bad }, 'x'));
    expect(error.classification).toBe('validation_failed');
    expect(error.message).toBe(message);
  });
  test('an object or array where a scalar belongs is refused', () => {
    if (Array.isArray(good)) return;
    expect(() => read({ x: { nested: true } }, 'x')).toThrow(ToolArgumentError);
    expect(() => read({ x: [good] }, 'x')).toThrow(ToolArgumentError);
  });
});

describe('required readers and rules', () => {
  test('missing and null are the same: required', () => {
    expect(argumentError(() => requireString({}, 'path')).message).toBe(
      'Argument "path" is required (a string).',
    );
    expect(argumentError(() => requireString({ path: null }, 'path')).message).toBe(
      'Argument "path" is required (a string).',
    );
    expect(argumentError(() => requireInteger({}, 'n')).message).toBe(
      'Argument "n" is required (an integer).',
    );
  });
  test('length and range bounds', () => {
    expect(argumentError(() => optionalString({ s: '' }, 's', { minLength: 1 })).message).toBe(
      'Argument "s" must be at least 1 character long.',
    );
    expect(argumentError(() => optionalString({ s: 'abcd' }, 's', { maxLength: 3 })).message).toBe(
      'Argument "s" must be at most 3 characters long, got 4.',
    );
    expect(argumentError(() => optionalInteger({ n: 0 }, 'n', { min: 1 })).message).toBe(
      'Argument "n" must be at least 1, got 0.',
    );
    expect(argumentError(() => optionalInteger({ n: 5001 }, 'n', { max: 5000 })).message).toBe(
      'Argument "n" must be at most 5000, got 5001.',
    );
    expect(optionalEnum({ v: 'a' }, 'v', ['a'])).toBe('a');
    expect(argumentError(() => optionalEnum({ v: 'c' }, 'v', ['a', 'b'])).message).toBe(
      'Argument "v" must be one of "a", "b", got "c".',
    );
  });
  test('readArgumentsObject', () => {
    expect(readArgumentsObject(undefined)).toEqual({});
    expect(readArgumentsObject(null)).toEqual({});
    expect(readArgumentsObject({ a: 1 })).toEqual({ a: 1 });
    expect(argumentError(() => readArgumentsObject([1])).message).toBe(
      'Tool arguments must be a JSON object, got an array.',
    );
    expect(argumentError(() => readArgumentsObject('{}')).message).toBe(
      'Tool arguments must be a JSON object, got the string "{}".',
    );
  });
});

describe('settings readers coerce instead of throwing', () => {
  test.each([
    [{ n: 50 }, 50],
    [{ n: 1 }, 5],
    [{ n: 9000 }, 600],
    [{ n: 7.9 }, 7],
    [{ n: '50' }, 30],
    [{}, 30],
    [{ n: Number.NaN }, 30],
  ])('clampIntegerSetting(%p) = %p', (parameters, expected) => {
    expect(clampIntegerSetting(parameters, 'n', { min: 5, max: 600, fallback: 30 })).toBe(expected);
  });
  test('getStringSetting', () => {
    expect(getStringSetting({ q: 'high' }, 'q', 'medium')).toBe('high');
    expect(getStringSetting({ q: 3 }, 'q', 'medium')).toBe('medium');
    expect(getStringSetting({ q: 'ultra' }, 'q', 'medium', ['low', 'medium'])).toBe('medium');
  });
  test('boolean, string list and path list settings', () => {
    expect(getBooleanSetting({ b: 'true' }, 'b', false)).toBe(false);
    expect(getBooleanSetting({ b: true }, 'b', false)).toBe(true);
    expect(getStringListSetting({ l: ['a', 1, 'b'] }, 'l')).toEqual(['a', 'b']);
    expect(
      getEnabledPathListSetting(
        {
          p: [{ path: '/a', enabled: true }, { path: '/b', enabled: false }, { path: 3, enabled: true }, 'x'],
        },
        'p',
      ),
    ).toEqual(['/a']);
  });
});
