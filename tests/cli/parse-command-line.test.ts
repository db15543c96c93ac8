import { describe, expect, test } from 'bun:test';
import { parseCommandLine } from '../../src/cli/parse-command-line.ts';

const OPTIONS = {
  json: { type: 'boolean' },
  cwd: { type: 'string' },
  set: { type: 'string', multiple: true },
} as const;

describe('parseCommandLine', () => {
  test('reads flags of each kind and keeps positionals in order', () => {
    const { values, positionals } = parseCommandLine(
      ['NAME', '--json', '--cwd', '/tmp/x', '--set', 'a=1', 'ARGS', '--set', 'b=2'],
      OPTIONS,
    );
    expect(values).toEqual({ json: true, cwd: '/tmp/x', set: ['a=1', 'b=2'] });
    expect(positionals).toEqual(['NAME', 'ARGS']);
  });

  test('leaves out flags that were not given', () => {
    const { values, positionals } = parseCommandLine([], OPTIONS);
    expect(values).toEqual({});
    expect(positionals).toEqual([]);
  });

  test('an unknown flag is a parse error main.ts reports as a usage mistake', () => {
    expect(() => parseCommandLine(['--jsn'], OPTIONS)).toThrow(
      expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }),
    );
  });

  test('a string flag without its value is a parse error, not an empty string', () => {
    expect(() => parseCommandLine(['--cwd'], OPTIONS)).toThrow(
      expect.objectContaining({ code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' }),
    );
  });

  test('a value given to a boolean flag is a parse error', () => {
    expect(() => parseCommandLine(['--json=yes'], OPTIONS)).toThrow(
      expect.objectContaining({ code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' }),
    );
  });
});
