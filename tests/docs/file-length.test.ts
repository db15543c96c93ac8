/**
 * No file in `src/` or `web/` is longer than 400 lines, and no function in their scripts longer than 80,
 * unless it is listed with its reason under "Long files and functions" in CONTRIBUTING.md: code that
 * grows past that usually holds more than one concept and is split along a seam, and what stays long
 * says why. A listed file or function that is no longer long fails too, so the list stays true. The
 * counters and the comparison are tested on planted input, so the check can fail.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { functionLengths } from './function-lengths.ts';
import { type LongCode, lengthProblems, parseLengthExceptions } from './length-exceptions.ts';
import { listRepositoryFiles } from './repository-files.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const LIMITS = { fileLines: 400, functionLines: 80 };

/** Text files with more than `limit` lines, with their counts; binary files are skipped. */
function filesOverLimit(root: string, files: readonly string[], limit: number): [string, number][] {
  const over: [string, number][] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    if (text.includes('\0')) continue;
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > limit) over.push([file, lines]);
  }
  return over;
}

/** Functions with more than `limit` lines in the TypeScript files among `files`. */
function functionsOverLimit(root: string, files: readonly string[], limit: number): LongCode[] {
  return files
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) =>
      functionLengths(readFileSync(join(root, file), 'utf8'))
        .filter((found) => found.lines > limit)
        .map((found) => ({ file, name: found.name, lines: found.lines })),
    );
}

describe('file and function length', () => {
  test(`files over ${LIMITS.fileLines} lines and functions over ${LIMITS.functionLines} are the listed ones`, () => {
    const files = listRepositoryFiles(ROOT, ['src', 'web']);
    expect(files.length).toBeGreaterThan(250);
    const long: LongCode[] = [
      ...filesOverLimit(ROOT, files, LIMITS.fileLines).map(([file, lines]) => ({
        file,
        name: undefined,
        lines,
      })),
      ...functionsOverLimit(ROOT, files, LIMITS.functionLines),
    ];
    const exceptions = parseLengthExceptions(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'));
    for (const code of long) {
      const exception = exceptions.find((row) => row.file === code.file && row.name === code.name);
      if (exception !== undefined) {
        console.warn(`long: ${code.file} ${code.name ?? ''} (${code.lines} lines): ${exception.reason}`);
      }
    }
    expect(lengthProblems(long, exceptions, LIMITS)).toEqual([]);
    // Parsing every file of src/ and web/ takes about a second alone, several while other files run.
  }, 60_000);

  describe('the file counter', () => {
    const root = mkdtempSync(join(tmpdir(), 'mango-length-'));
    afterAll(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, 'src'));
    const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index}\n`).join('');
    writeFileSync(join(root, 'src', 'at-limit.ts'), lines(400));
    writeFileSync(join(root, 'src', 'over.ts'), lines(401));
    writeFileSync(join(root, 'src', 'over-no-newline.ts'), `${lines(400)}last`);
    writeFileSync(
      join(root, 'src', 'image.png'),
      Buffer.from([0x89, 0x50, 0x00, 0x0a].concat(Array(900).fill(0x0a))),
    );

    test('reports exactly the files past the limit, with their line counts', () => {
      const files = listRepositoryFiles(root, ['src']);
      expect(filesOverLimit(root, files, LIMITS.fileLines)).toEqual([
        ['src/over-no-newline.ts', 401],
        ['src/over.ts', 401],
      ]);
    });
  });

  describe('the function counter', () => {
    /** A body of `count` lines in all, braces included. */
    const body = (count: number) => `{\n${'  work();\n'.repeat(count - 2)}}`;
    const lengths = (text: string) =>
      functionLengths(text).map(({ name, line, lines }) => [name, line, lines]);

    test('counts declarations, expressions, arrows, methods, constructors and accessors by name', () => {
      const text = [
        '/** Its doc comment is not counted. */',
        `export function declared() ${body(3)}`,
        `const arrow = () => ${body(4)};`,
        `const expression = function () ${body(2)};`,
        `const table = { property: () => ${body(2)}, method() ${body(2)} };`,
        `class Shelf { constructor() ${body(2)} get size() ${body(2)} put() ${body(2)} field = () => ${body(2)} }`,
      ].join('\n');
      expect(lengths(text)).toEqual([
        ['declared', 2, 3],
        ['arrow', 5, 4],
        ['expression', 9, 2],
        ['property', 11, 2],
        ['method', 12, 2],
        ['Shelf.constructor', 14, 2],
        ['Shelf.size', 15, 2],
        ['Shelf.put', 16, 2],
        ['Shelf.field', 17, 2],
      ]);
    });

    test('names a callback after the function it sits in, and a repeated name with #2', () => {
      const text = [
        `function outer() { list.map((item) => ${body(2)}); list.map(() => ${body(2)}); }`,
        `run(() => ${body(2)});`,
      ].join('\n');
      expect(lengths(text)).toEqual([
        ['outer', 1, 3],
        ['<anonymous> in outer', 1, 2],
        ['<anonymous> in outer #2', 2, 2],
        ['<anonymous> in the module', 4, 2],
      ]);
    });

    test('reports a function of 81 lines past a limit of 80 and not one of 80', () => {
      const root = mkdtempSync(join(tmpdir(), 'mango-function-length-'));
      try {
        mkdirSync(join(root, 'src'));
        writeFileSync(
          join(root, 'src', 'code.ts'),
          `function atLimit() ${body(80)}\nconst over = () => ${body(81)};\n`,
        );
        writeFileSync(join(root, 'src', 'notes.md'), `function long() ${body(200)}\n`);
        expect(functionsOverLimit(root, listRepositoryFiles(root, ['src']), LIMITS.functionLines)).toEqual([
          { file: 'src/code.ts', name: 'over', lines: 81 },
        ]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  });

  describe('the list of exceptions', () => {
    const section = (rows: string[]) =>
      [
        '# Contributing',
        '## Long files and functions',
        'Text before the table.',
        '| file | function | why it stays long |',
        '| ---- | -------- | ----------------- |',
        ...rows,
        '## Next section',
        '| `src/not-read.ts` | | rows of another section are not exceptions |',
      ].join('\n');

    test('reads file rows and function rows with their reasons', () => {
      expect(
        parseLengthExceptions(
          section(['| `src/table.ts` | | one table |', '| `src/a.ts` | `build` | one recipe |']),
        ),
      ).toEqual([
        { file: 'src/table.ts', name: undefined, reason: 'one table' },
        { file: 'src/a.ts', name: 'build', reason: 'one recipe' },
      ]);
    });

    test('refuses a row without a reason, other columns and a missing section', () => {
      expect(() => parseLengthExceptions(section(['| `src/a.ts` | `build` | |']))).toThrow(
        'line 6: a row needs a file and a reason: | `src/a.ts` | `build` | |',
      );
      expect(() => parseLengthExceptions('## Long files and functions\n| file | reason |\n')).toThrow(
        "line 2: the table's columns must be file | function | why it stays long",
      );
      expect(() => parseLengthExceptions('## Other\n')).toThrow('no "## Long files and functions" section');
    });

    test('fails on an unlisted long file or function, a listed one no longer long, and a row listed twice', () => {
      const long: LongCode[] = [
        { file: 'src/big.ts', name: undefined, lines: 420 },
        { file: 'src/a.ts', name: 'build', lines: 95 },
        { file: 'src/a.ts', name: 'listed', lines: 90 },
      ];
      const exceptions = [
        { file: 'src/a.ts', name: 'listed', reason: 'one recipe' },
        { file: 'src/a.ts', name: 'shrunk', reason: 'was long' },
        { file: 'src/a.ts', name: 'shrunk', reason: 'was long' },
      ];
      expect(lengthProblems(long, exceptions, LIMITS)).toEqual([
        'src/a.ts shrunk is listed twice',
        'src/big.ts has 420 lines (limit 400): split it by concept, or list it with a reason under ' +
          '"Long files and functions" in CONTRIBUTING.md',
        'src/a.ts build has 95 lines (limit 80): split it by concept, or list it with a reason under ' +
          '"Long files and functions" in CONTRIBUTING.md',
        'src/a.ts shrunk is listed under "Long files and functions" but is no longer long: remove its row',
      ]);
      expect(lengthProblems(long.slice(2), exceptions.slice(0, 1), LIMITS)).toEqual([]);
    });
  });
});
