import { describe, expect, test } from 'bun:test';
import { getEnabledPathListSetting, readArgumentsObject } from '../../src/tools/arg-parsing.ts';
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

describe('readArgumentsObject', () => {
  test('no arguments read as an empty object; an object is returned as it is', () => {
    expect(readArgumentsObject(undefined)).toEqual({});
    expect(readArgumentsObject(null)).toEqual({});
    expect(readArgumentsObject({ a: 1 })).toEqual({ a: 1 });
  });
  test('anything else is refused, naming what was received', () => {
    expect(argumentError(() => readArgumentsObject([1])).message).toBe(
      'Tool arguments must be a JSON object, got an array.',
    );
    expect(argumentError(() => readArgumentsObject('{}')).message).toBe(
      'Tool arguments must be a JSON object, got the string "{}".',
    );
    expect(argumentError(() => readArgumentsObject(5)).message).toBe(
      'Tool arguments must be a JSON object, got number 5.',
    );
  });
});

test('getEnabledPathListSetting keeps the enabled, well-formed entries', () => {
  expect(
    getEnabledPathListSetting(
      {
        p: [{ path: '/a', enabled: true }, { path: '/b', enabled: false }, { path: 3, enabled: true }, 'x'],
      },
      'p',
    ),
  ).toEqual(['/a']);
  expect(getEnabledPathListSetting({ p: 'x' }, 'p')).toEqual([]);
  expect(getEnabledPathListSetting({}, 'p')).toEqual([]);
});
