/**
 * No test waits a fixed time: every delay in tests/ (fixture programs included) is a fixture's own
 * behaviour marked `// fixture: <what it stands for>` on its line, or it is not there. The one file
 * allowed to wait by the clock is the poll that every condition wait goes through. The scanner is tested
 * on sample text, so the check can fail.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { findUnmarkedSleeps } from './fixed-sleeps.ts';
import { listRepositoryFiles } from './repository-files.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
/** Files whose timed waits are the mechanism itself, with the reason. */
const EXEMPT = new Map([['tests/helpers/wait-until.ts', 'the poll of waitUntil and holdsFor']]);

/** `file:line: text` of every unmarked delay in the scripts among `files`. */
function unmarkedSleeps(root: string, files: readonly string[]): string[] {
  return files
    .filter((file) => /\.(ts|tsx|js|mjs|cjs)$/.test(file) && !EXEMPT.has(file))
    .flatMap((file) =>
      findUnmarkedSleeps(readFileSync(resolve(root, file), 'utf8')).map(
        (sleep) => `${file}:${sleep.line}: ${sleep.text}`,
      ),
    );
}

describe('fixed sleeps in tests', () => {
  test('every delay under tests/ is a marked fixture', () => {
    const files = listRepositoryFiles(ROOT, ['tests'], { withFixtures: true });
    expect(files.length).toBeGreaterThan(400);
    expect(unmarkedSleeps(ROOT, files)).toEqual([]);
  });

  test('the exempt files exist and still wait by the clock (else the exemption is stale)', () => {
    for (const file of EXEMPT.keys()) {
      expect([file, findUnmarkedSleeps(readFileSync(resolve(ROOT, file), 'utf8')).length > 0]).toEqual([
        file,
        true,
      ]);
    }
  });
});

describe('the scanner', () => {
  // Built from parts, so this file holds no delay of its own for the check above to find.
  const bun = 'Bun';
  const set = 'set';
  const atomics = 'Atomics';
  const waitFor = 'waitFor';
  const timers = 'timers';
  const lines = (text: string) => findUnmarkedSleeps(text).map((sleep) => [sleep.line, sleep.text]);

  test('flags an unmarked sleep with its line', () => {
    expect(lines(`const a = 1;\n  await ${bun}.sleep(100);\n`)).toEqual([[2, `await ${bun}.sleep(100);`]]);
  });

  test('accepts a sleep marked as a fixture on its line', () => {
    expect(lines(`await ${bun}.sleep(20); // fixture: a provider pausing between packets\n`)).toEqual([]);
  });

  test('a marker without its reason, in a block comment or on another line does not count', () => {
    expect(
      lines(
        [
          `await ${bun}.sleep(1); // fixture:`,
          `await ${bun}.sleep(2); /* fixture: a pause */`,
          '// fixture: a pause',
          `await ${bun}.sleep(3);`,
          `await ${bun}.sleep(4); // a fixture: a pause`,
        ].join('\n'),
      ),
    ).toEqual([
      [1, `await ${bun}.sleep(1); // fixture:`],
      [2, `await ${bun}.sleep(2); /* fixture: a pause */`],
      [4, `await ${bun}.sleep(3);`],
      [5, `await ${bun}.sleep(4); // a fixture: a pause`],
    ]);
  });

  test('flags every kind of delay, in a script a test spawns too', () => {
    const kinds = [
      `${bun}.sleepSync(5);`,
      `await new Promise((resolve) => ${set}Timeout(resolve, 100));`,
      `${set}Timeout(() => controller.abort(), 300);`,
      `globalThis.${set}Timeout(done, 10);`,
      `const check = ${set}Interval(poll, 10);`,
      `${atomics}.wait(view, 0, 0, 50);`,
      `await page.${waitFor}Timeout(300);`,
      `import { setTimeout as sleep } from 'node:${timers}/promises';`,
      `Bun.spawn(['bun', '-e', 'await ${bun}.sleep(100)']);`,
    ];
    expect(lines(kinds.join('\n')).map(([line]) => line)).toEqual(kinds.map((_kind, index) => index + 1));
  });

  test('leaves comments, injected timers, yields and shell sleeps alone', () => {
    const text = [
      `// never a fixed ${bun}.sleep(100) here`,
      `/* nor ${set}Timeout(resolve, 5) */ const a = 1;`,
      '/**',
      ` * not ${bun}.sleep(1) either`,
      ' */',
      'clock.timers.setTimeout(callback, 5_000);',
      `const timers = { ${set}Timeout: (callback) => schedule(callback), clearTimeout: clear };`,
      'clearTimeout(timer);',
      'await new Promise((resolve) => setImmediate(resolve));',
      "await run('touch started; exec sleep 600');",
    ].join('\n');
    expect(lines(text)).toEqual([]);
  });
});
