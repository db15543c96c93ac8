/**
 * The suite runner's choices: how many worker processes, and the `bun test` command line it starts.
 */
import { describe, expect, test } from 'bun:test';
import { bunTestArguments, RUNS_ALONE, splitSuite, testWorkers } from './run-suite.ts';

describe('testWorkers', () => {
  test('unset or empty: one more than the cores, at most 4', () => {
    expect([1, 2, 3, 8].map((cores) => testWorkers(undefined, cores))).toEqual([2, 3, 4, 4]);
    expect(testWorkers('', 2)).toBe(3);
  });

  test('a whole number from 1 to 16 is taken as given', () => {
    expect(['1', '2', '16'].map((value) => testWorkers(value, 2))).toEqual([1, 2, 16]);
  });

  test('anything else is refused, saying what was given', () => {
    for (const value of ['0', '17', '2.5', '-1', 'two', ' 3']) {
      expect(() => testWorkers(value, 2)).toThrow(
        `MANGO_TEST_WORKERS must be a whole number from 1 to 16, got ${JSON.stringify(value)}.`,
      );
    }
  });
});

describe('bunTestArguments', () => {
  test('several workers run the files in parallel; the arguments given follow', () => {
    expect(bunTestArguments(3, ['tests/http', '--bail'])).toEqual([
      process.execPath,
      'test',
      '--parallel=3',
      '--timeout=30000',
      'tests/http',
      '--bail',
    ]);
  });

  test('one worker runs them one after another, as bare bun test does', () => {
    expect(bunTestArguments(1, [])).toEqual([process.execPath, 'test', '--timeout=30000']);
  });

  test('a time limit given is kept, not doubled', () => {
    expect(bunTestArguments(2, ['--timeout=9000'])).toEqual([
      process.execPath,
      'test',
      '--parallel=2',
      '--timeout=9000',
    ]);
  });
});

describe('splitSuite', () => {
  test('a file marked to run alone goes to the second part; every other file to the first, sorted', () => {
    const marked = `/** A test. */\n// Runs alone (tests/run-suite.ts): it attaches loop devices.\nimport 'x';\n`;
    expect(
      splitSuite([
        { path: 'tests/b.test.ts', text: 'plain' },
        { path: 'tests/disks.test.ts', text: marked },
        { path: 'tests/a.test.ts', text: '// Runs alone, but not marked so' },
      ]),
    ).toEqual({ together: ['./tests/a.test.ts', './tests/b.test.ts'], alone: ['./tests/disks.test.ts'] });
  });

  test('a mark without its reason does not count', () => {
    expect(RUNS_ALONE.test('// Runs alone (tests/run-suite.ts): ')).toBe(false);
  });
});
