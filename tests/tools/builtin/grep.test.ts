import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { executeTool } from '../../../src/tools/execution.ts';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { manualTimers } from '../../helpers/manual-timers.ts';
import { makeReachableSet, makeTempDirectory, pathList } from '../../helpers/tool-context.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

const temp = makeTempDirectory('mango-grep-');
const root = temp.path;
const wd = join(root, 'project');
const outside = join(root, 'outside');

beforeAll(() => {
  for (const directory of ['src/deep', 'docs', 'secret', '.hidden'])
    mkdirSync(join(wd, directory), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(wd, 'src/a.ts'), 'const needle = 1;\nother line\nNEEDLE upper\n');
  writeFileSync(join(wd, 'src/deep/b.ts'), 'x\nneedle in deep\n');
  writeFileSync(join(wd, 'src/c.js'), 'needle in js\n');
  writeFileSync(join(wd, 'docs/readme.md'), 'no match here\n');
  writeFileSync(join(wd, 'secret/key.ts'), 'needle secret\n');
  writeFileSync(join(wd, '.hidden/h.ts'), 'needle hidden\n');
  writeFileSync(
    join(wd, 'binary.bin'),
    Buffer.concat([Buffer.from('needle'), Buffer.from([0]), Buffer.from('needle')]),
  );
  writeFileSync(join(wd, 'late-nul.txt'), `${'x'.repeat(9000)}\0\nneedle after probe\n`);
  writeFileSync(join(wd, 'long.txt'), `needle ${'y'.repeat(3000)}\n`);
  writeFileSync(join(outside, 'o.ts'), 'needle outside\n');
  symlinkSync(join(outside, 'o.ts'), join(wd, 'src/escape.ts'));
  writeFileSync(join(wd, 'giveup.txt'), `first line\n${'a'.repeat(26)}!\nlast line\n`);
  writeFileSync(
    join(wd, 'redos.txt'),
    `${Array.from({ length: 40 }, () => `${'a'.repeat(40)}!`).join('\n')}\n`,
  );
});
afterAll(() => temp.remove());

const call = (args: Record<string, unknown>, parameters?: Record<string, unknown>, confined = false) =>
  createChat({ workingDirectory: wd, parameters, confined }).call('grep', args);

describe('results', () => {
  test('exact shape, walk filtered by glob at any depth, paths relative to the working directory', async () => {
    const result = expectOk(await call({ pattern: 'needle', path: 'src', glob: '*.ts' }));
    expect(result).toEqual({
      pattern: 'needle',
      path: 'src',
      matches: [
        { file: 'src/a.ts', line: 1, text: 'const needle = 1;' },
        { file: 'src/deep/b.ts', line: 2, text: 'needle in deep' },
      ],
      filesScanned: 2,
      truncated: false,
    });
  });

  test('caseInsensitive', async () => {
    const result = expectOk(await call({ pattern: 'needle', path: 'src/a.ts', caseInsensitive: true }));
    expect(result.matches).toEqual([
      { file: 'src/a.ts', line: 1, text: 'const needle = 1;' },
      { file: 'src/a.ts', line: 3, text: 'NEEDLE upper' },
    ]);
  });

  test('binary files are skipped with the probe read_file uses; a NUL past 8 KiB is not binary', async () => {
    const result = expectOk(await call({ pattern: 'needle', path: '.', glob: '*.{bin,txt}' }));
    expect((result.matches as { file: string }[]).map((match) => match.file)).toEqual([
      'late-nul.txt',
      'long.txt',
    ]);
    const single = expectOk(await call({ pattern: 'needle', path: 'binary.bin' }));
    expect(single.matches).toEqual([]);
    expect(single.notice).toContain('binary.bin is binary');
  });

  test('files over maxFileSizeBytes are skipped and named', async () => {
    const result = expectOk(
      await call({ pattern: 'needle', path: 'src', glob: '*.ts' }, { maxFileSizeBytes: 20 }),
    );
    expect(result.matches).toEqual([{ file: 'src/deep/b.ts', line: 2, text: 'needle in deep' }]);
    expect(result.notice).toBe('Skipped 1 file larger than maxFileSizeBytes (20 bytes): src/a.ts.');
  });

  test('a long line is cut at 2000 characters with a marker', async () => {
    const result = expectOk(await call({ pattern: 'needle', path: 'long.txt' }));
    const text = (result.matches as { text: string }[])[0]!.text;
    expect(text).toBe(
      `needle ${'y'.repeat(1993)} [cut: line of 3007 characters, first 2000 shown; read it whole with read_file view "hex" or "base64"]`,
    );
  });

  test('maxResults and maxMatchesPerFile cap with truncated and a notice', async () => {
    const capped = expectOk(await call({ pattern: 'needle', path: 'src' }, { maxResults: 2 }));
    expect((capped.matches as unknown[]).length).toBe(2);
    expect(capped.truncated).toBe(true);
    expect(capped.notice).toBe(
      '[cut: stopped at maxResults (2) matches; narrow the pattern, the path or the glob to see the rest]',
    );
    const exact = expectOk(await call({ pattern: 'needle', path: 'src' }, { maxResults: 3 }));
    expect([(exact.matches as unknown[]).length, exact.truncated]).toEqual([3, false]);
    const perFile = expectOk(
      await call({ pattern: 'needle', path: 'src/a.ts', caseInsensitive: true }, { maxMatchesPerFile: 1 }),
    );
    expect([(perFile.matches as unknown[]).length, perFile.truncated]).toEqual([1, true]);
    expect(perFile.notice).toBe(
      '[cut: some files have more than maxMatchesPerFile (1) matching lines and only the first 1 of each are listed; search a single file with a narrower pattern to see the rest]',
    );
  });
});

describe('re-anchoring', () => {
  test('search root outside the working directory: absolute paths', async () => {
    const chat = createChat({ workingDirectory: join(wd, 'docs') });
    const result = expectOk(await chat.call('grep', { pattern: 'deep', path: '../src' }));
    expect(result.matches).toEqual([{ file: join(wd, 'src/deep/b.ts'), line: 2, text: 'needle in deep' }]);
    expect(result.path).toBe('../src');
  });
  test('matches outside the working directory: absolute paths', async () => {
    const chat = createChat({ workingDirectory: join(wd, 'docs') });
    const result = expectOk(await chat.call('grep', { pattern: 'deep', path: join(wd, 'src') }));
    expect(result.matches).toEqual([{ file: join(wd, 'src/deep/b.ts'), line: 2, text: 'needle in deep' }]);
  });
  test('single-file search is re-anchored too and passes into read_file', async () => {
    const chat = createChat({ workingDirectory: wd });
    const result = expectOk(await chat.call('grep', { pattern: 'deep', path: join(wd, 'src/deep/b.ts') }));
    const file = (result.matches as { file: string }[])[0]!.file;
    expect(file).toBe('src/deep/b.ts');
    expect(expectOk(await chat.call('read_file', { path: file, startLine: 2 })).content).toBe(
      '     2\tneedle in deep',
    );
  });
});

describe('policy', () => {
  test('denied directories, dotfiles and symlinks are not searched', async () => {
    const result = expectOk(
      await call({ pattern: 'needle', path: '.', glob: '*.ts' }, { deniedPaths: pathList('secret') }, true),
    );
    expect((result.matches as { file: string }[]).map((match) => match.file)).toEqual([
      'src/a.ts',
      'src/deep/b.ts',
    ]);
    expect(result.notice).toBe(
      '1 file was not searched because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.',
    );
  });
  test('a glob that names a dot segment searches it, as Bun.Glob and the glob tool do', async () => {
    for (const glob of ['.hidden/**', '.hidden/*.ts', '.hid*/h.ts']) {
      const result = expectOk(await call({ pattern: 'needle', path: '.', glob }));
      expect({ glob, matches: result.matches }).toEqual({
        glob,
        matches: [{ file: '.hidden/h.ts', line: 1, text: 'needle hidden' }],
      });
    }
    // A wildcard alone still skips dot entries (includeDotfiles is off).
    const wildcard = expectOk(await call({ pattern: 'needle hidden', path: '.', glob: '**/*.ts' }));
    expect(wildcard.matches).toEqual([]);
  });

  test('includeDotfiles searches hidden directories', async () => {
    const result = expectOk(await call({ pattern: 'hidden', path: '.' }, { includeDotfiles: true }));
    expect(result.matches).toEqual([{ file: '.hidden/h.ts', line: 1, text: 'needle hidden' }]);
  });
  test('a path outside a restricted chat is refused', async () => {
    expect(expectFailure(await call({ pattern: 'x', path: '..' }, undefined, true)).classification).toBe(
      'permission_denied',
    );
  });
});

describe('arguments', () => {
  test.each([
    ['invalid regex', { pattern: '(', path: '.' }, 'Invalid regular expression'],
    ['1001-character pattern', { pattern: 'x'.repeat(1001), path: '.' }, 'at most 1000'],
    ['string flag', { pattern: 'x', path: '.', caseInsensitive: 'true' }, 'must be a boolean'],
    ['missing path', { pattern: 'x' }, '"path" is required'],
    ['numeric glob', { pattern: 'x', path: '.', glob: 5 }, '"glob" must be a string'],
  ])('%s is validation_failed', async (_name, args, message) => {
    const error = expectFailure(await call(args));
    expect(error.classification).toBe('validation_failed');
    expect(error.message).toContain(message);
  });
  test('a missing path is not_found', async () => {
    expect(expectFailure(await call({ pattern: 'x', path: 'nope' })).classification).toBe('not_found');
  });
});

describe('no freeze, no silent false negative', () => {
  test('the JSC give-up case returns the ! line (linear engine)', async () => {
    const result = expectOk(await call({ pattern: '(a+)+c|!', path: 'giveup.txt' }));
    expect(result.matches).toEqual([{ file: 'giveup.txt', line: 2, text: `${'a'.repeat(26)}!` }]);
  });

  test('(a+)+$ against a long line ends quickly with the right answer', async () => {
    writeFileSync(join(wd, 'long-a.txt'), `${'a'.repeat(100_000)}!\n${'a'.repeat(50)}\n`);
    const result = expectOk(await call({ pattern: '(a+)+$', path: 'long-a.txt' }));
    expect((result.matches as { line: number }[]).map((match) => match.line)).toEqual([2]);
  });

  test('a give-up on a pattern only JavaScript can run is reported, not skipped', async () => {
    const result = expectOk(await call({ pattern: '(a+)+c|!(?!x)', path: 'giveup.txt' }));
    expect(result.truncated).toBe(true);
    expect(result.notice).toContain('giveup.txt (line 2)');
  }, 20_000);

  test('a ReDoS pattern ends at the budget while a concurrent request is answered', async () => {
    // The budget is an injected timer the test fires once the other request was answered.
    const { timers, pending, fireAll } = manualTimers();
    const events: string[] = [];
    const grep = executeTool(
      'grep',
      { pattern: '(a+)+b(?=c)', path: 'redos.txt' },
      { userId: 'user-1', reachable: makeReachableSet({ workingDirectory: wd }) },
      undefined,
      { timers },
    ).then((outcome) => {
      events.push('grep');
      return outcome;
    });
    // The budget is armed as the search starts.
    expect(await waitUntil(() => pending.length === 1, 5_000)).toBe(true);
    const concurrent = await executeTool(
      'read_file',
      { path: 'src/a.ts' },
      { userId: 'user-1', reachable: makeReachableSet({ workingDirectory: wd }) },
    );
    events.push('read_file');
    expect(concurrent.ok).toBe(true);
    fireAll();
    const outcome = await grep;
    expect(events).toEqual(['read_file', 'grep']);
    expect(expectFailure(outcome).classification).toBe('timeout');
  }, 20_000);
});

describe('the protected set below a search root', () => {
  test('a protected file below the root is refused and counted, a protected directory is not walked at all', async () => {
    const base = join(root, 'guarded');
    mkdirSync(join(base, 'data'), { recursive: true });
    writeFileSync(join(base, 'open.txt'), 'needle open\n');
    writeFileSync(join(base, 'server.db'), 'needle db\n');
    writeFileSync(join(base, 'data', 'rows.txt'), 'needle rows\n');
    const chat = createChat({
      workingDirectory: base,
      workspaces: [{ path: base, access: 'read-write', kind: 'personal' }],
      protectedPaths: [join(base, 'server.db'), join(base, 'data')],
    });
    expect(expectOk(await chat.call('grep', { pattern: 'needle', path: '.' }))).toEqual({
      pattern: 'needle',
      path: '.',
      matches: [{ file: 'open.txt', line: 1, text: 'needle open' }],
      filesScanned: 1,
      truncated: false,
      notice:
        '1 file was not searched because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.',
    });
  });
});
