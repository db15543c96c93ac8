import { describe, expect, test } from 'bun:test';
import {
  defaultSettingValues,
  describeSettings,
  readSettingValues,
  setting,
} from '../../src/tools/tool-settings.ts';

const SETTINGS = {
  limit: setting.integer({ label: 'Limit', description: 'Most results.', min: 5, max: 600, default: 30 }),
  ratio: setting.number({ label: 'Ratio', description: 'A share.', min: 0, max: 1, default: 0.5 }),
  loud: setting.boolean({ label: 'Loud', description: 'Shout.', default: false }),
  greeting: setting.string({ label: 'Greeting', description: 'Said first.', default: 'hi' }),
  tone: setting.select({
    label: 'Tone',
    description: 'How.',
    allowedValues: ['low', 'high'],
    default: 'low',
  }),
  names: setting.stringList({ label: 'Names', description: 'Who.' }),
  paths: setting.pathList({ label: 'Paths', description: 'Where.' }),
};

test('descriptors are derived from the one declaration, in declaration order', () => {
  expect(describeSettings(SETTINGS)).toEqual([
    {
      name: 'limit',
      label: 'Limit',
      description: 'Most results.',
      type: 'integer',
      min: 5,
      max: 600,
      default: 30,
    },
    { name: 'ratio', label: 'Ratio', description: 'A share.', type: 'number', min: 0, max: 1, default: 0.5 },
    { name: 'loud', label: 'Loud', description: 'Shout.', type: 'boolean', default: false },
    { name: 'greeting', label: 'Greeting', description: 'Said first.', type: 'string', default: 'hi' },
    {
      name: 'tone',
      label: 'Tone',
      description: 'How.',
      type: 'select',
      allowedValues: ['low', 'high'],
      default: 'low',
    },
    { name: 'names', label: 'Names', description: 'Who.', type: 'string_list', default: [] },
    { name: 'paths', label: 'Paths', description: 'Where.', type: 'path_list', default: [] },
  ]);
  expect(defaultSettingValues(SETTINGS)).toEqual({
    limit: 30,
    ratio: 0.5,
    loud: false,
    greeting: 'hi',
    tone: 'low',
    names: [],
    paths: [],
  });
});

describe('the typed reader gives each value its declared type, within bounds', () => {
  test.each([
    [50, 50],
    [1, 5],
    [9000, 600],
    [7.9, 7],
    ['50', 30],
    [undefined, 30],
    [Number.NaN, 30],
  ])('integer %p reads as %p', (value, expected) => {
    expect(readSettingValues(SETTINGS, { limit: value }).limit).toBe(expected);
  });

  test('the other types: valid values kept, wrong types read as the default', () => {
    expect(readSettingValues(SETTINGS, { ratio: 2, loud: 'true', greeting: 3, tone: 'ultra' })).toMatchObject(
      {
        ratio: 1,
        loud: false,
        greeting: 'hi',
        tone: 'low',
      },
    );
    expect(readSettingValues(SETTINGS, { loud: true, greeting: 'yo', tone: 'high' })).toMatchObject({
      loud: true,
      greeting: 'yo',
      tone: 'high',
    });
    const read = readSettingValues(SETTINGS, {
      names: ['a', 1, 'b'],
      paths: [{ path: '/a', enabled: true }, { path: '/b', enabled: false }, { path: 3, enabled: true }, 'x'],
    });
    expect(read.names).toEqual(['a', 'b']);
    expect(read.paths).toEqual([
      { path: '/a', enabled: true },
      { path: '/b', enabled: false },
    ]);
  });

  test('a default is never shared with the declaration', () => {
    const read = readSettingValues(SETTINGS, {});
    read.names.push('changed');
    expect(SETTINGS.names.default).toEqual([]);
  });
});

test('a declaration that contradicts itself throws when it is declared', () => {
  expect(() => setting.integer({ label: 'L', description: 'd', min: 1, max: 10, default: 11 })).toThrow(
    'The integer setting "L" has default 11 outside 1–10.',
  );
  expect(() => setting.integer({ label: 'L', description: 'd', min: 10, max: 1, default: 5 })).toThrow(
    'The integer setting "L" has min 10 above max 1.',
  );
  expect(() => setting.integer({ label: 'L', description: 'd', min: 1, max: 10, default: 2.5 })).toThrow(
    'The integer setting "L" has a bound or default that is not an integer.',
  );
  expect(() =>
    setting.select({ label: 'S', description: 'd', allowedValues: ['a'], default: 'b' as 'a' }),
  ).toThrow('The select setting "S" has a default that is not one of its values.');
});
