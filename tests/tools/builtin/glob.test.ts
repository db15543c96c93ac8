/**
 * The glob tool, wherever its file work runs (`FILE_WORK`: through the user's file worker in a real
 * sandbox, and in this process): patterns, re-anchoring, the policy and the caps, with the same results
 * both ways except where the worker's sandbox does not hold a directory at all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChatFixture,
  createChat as createAnyChat,
  expectFailure,
  expectOk,
} from '../../helpers/call-tool.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';
import { pathList } from '../../helpers/tool-context.ts';
import { useToolFileWork } from '../../helpers/tool-file-work.ts';

// Outside /tmp (the sandbox's /tmp is its own) and passable by the sandbox's uids.
const root = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-glob-')));
const wd = join(root, 'project');
const outside = join(root, 'outside');

/**
 * A chat of the user whose personal workspace is `wd`, with `outside` granted read-only (not operator
 * mode, so a worker does its file work); a confined one reaches only its working directory.
 */
function createChat(fixture: ChatFixture = {}) {
  return createAnyChat({
    workspaces: [
      { path: wd, access: 'read-write', kind: 'personal' },
      { path: outside, access: 'read-only', kind: 'granted' },
    ],
    homeDirectory: wd,
    ...fixture,
  });
}

beforeAll(() => {
  chmodSync(root, 0o755);
  for (const directory of ['src/util', 'docs', '.hidden', 'secret'])
    mkdirSync(join(wd, directory), { recursive: true, mode: 0o755 });
  mkdirSync(outside, { mode: 0o755 });
  for (const file of [
    'src/a.ts',
    'src/b.js',
    'src/util/c.ts',
    'docs/readme.md',
    '.hidden/h.ts',
    'secret/s.ts',
    '.env.ts',
  ]) {
    writeFileSync(join(wd, file), file);
  }
  writeFileSync(join(outside, 'o.ts'), 'o');
  symlinkSync(join(outside, 'o.ts'), join(wd, 'src', 'escape.ts'));
  symlinkSync(join(wd, 'src', 'a.ts'), join(wd, 'src', 'alias.ts'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.each(FILE_WORK)('glob, file work %s', (mode) => {
  const work = useToolFileWork(mode);

  describe('patterns', () => {
    const cases: [string, string, Record<string, unknown>, string[]][] = [
      ['**', '**/*.ts', {}, ['secret/s.ts', 'src/a.ts', 'src/alias.ts', 'src/escape.ts', 'src/util/c.ts']],
      ['*', 'src/*', {}, ['src/a.ts', 'src/alias.ts', 'src/b.js', 'src/escape.ts', 'src/util']],
      ['?', 'src/?.ts', {}, ['src/a.ts']],
      ['[]', 'src/[ab].*', {}, ['src/a.ts', 'src/b.js']],
      ['{a,b}', 'src/{a.ts,b.js}', {}, ['src/a.ts', 'src/b.js']],
      [
        '! (everything else)',
        '!**/*.ts',
        {},
        ['docs', 'docs/readme.md', 'secret', 'src', 'src/b.js', 'src/util'],
      ],
      [
        'includeDotfiles',
        '**/*.ts',
        { includeDotfiles: true },
        [
          '.env.ts',
          '.hidden/h.ts',
          'secret/s.ts',
          'src/a.ts',
          'src/alias.ts',
          'src/escape.ts',
          'src/util/c.ts',
        ],
      ],
      ['explicit dot segment', '.hidden/*', {}, ['.hidden/h.ts']],
    ];
    test.each(cases)('%s: %s', async (_name, pattern, parameters, expected) => {
      const result = expectOk(
        await createChat({ workingDirectory: wd, parameters }).call('glob', { pattern }),
      );
      expect(result.matches).toEqual(expected);
      expect(result.truncated).toBe(false);
    });
  });

  describe('re-anchoring', () => {
    test('cwd below the working directory: paths stay relative to the working directory', async () => {
      const result = expectOk(
        await createChat({ workingDirectory: wd }).call('glob', { pattern: '*.ts', cwd: 'src/util' }),
      );
      expect(result).toEqual({
        pattern: '*.ts',
        cwd: 'src/util',
        matches: ['src/util/c.ts'],
        truncated: false,
      });
    });
    test('a match outside the working directory is absolute', async () => {
      const result = expectOk(
        await createChat({ workingDirectory: join(wd, 'docs') }).call('glob', {
          pattern: 'src/*.js',
          cwd: '..',
        }),
      );
      expect(result.matches).toEqual([join(wd, 'src/b.js')]);
    });
    test('matches outside the working directory: absolute paths, cwd echoed as given', async () => {
      const chat = createChat({ workingDirectory: join(wd, 'docs') });
      const result = expectOk(await chat.call('glob', { pattern: 'src/*.js', cwd: wd }));
      expect(result.matches).toEqual([join(wd, 'src/b.js')]);
      expect(result.cwd).toBe(wd);
    });
    test('the absolute setting opts out', async () => {
      const result = expectOk(
        await createChat({ workingDirectory: wd, parameters: { absolute: true } }).call('glob', {
          pattern: 'src/*.js',
        }),
      );
      expect(result.matches).toEqual([join(wd, 'src/b.js')]);
      expect(result.cwd).toBe(wd);
    });
    test('results pass straight into read_file', async () => {
      const chat = createChat({ workingDirectory: wd });
      const result = expectOk(await chat.call('glob', { pattern: '*.ts', cwd: 'src/util' }));
      const read = expectOk(await chat.call('read_file', { path: (result.matches as string[])[0] }));
      expect(read.content).toBe('     1\tsrc/util/c.ts');
    });
  });

  describe('policy and caps', () => {
    test('every candidate passes the policy: denied paths and symlinks pointing out are left out', async () => {
      const chat = createChat({
        workingDirectory: wd,
        confined: true,
        parameters: { deniedPaths: pathList('secret') },
      });
      const result = expectOk(await chat.call('glob', { pattern: '**/*.ts' }));
      expect(result.matches).toEqual(['src/a.ts', 'src/alias.ts', 'src/util/c.ts']);
      // secret/s.ts and the escaping symlink: left out, and the model is told.
      expect(result.notice).toBe(
        '2 matching paths were left out because the path policy refuses them (outside what this chat can reach, outside allowedPaths, or under deniedPaths); they cannot be read in this chat.',
      );
    });
    test('a result the policy emptied says so instead of looking like "no such files"', async () => {
      const chat = createChat({ workingDirectory: wd, confined: true });
      const result = expectOk(await chat.call('glob', { pattern: '../outside/*.ts' }));
      expect(result.matches).toEqual([]);
      // In process the walk meets o.ts and the policy refuses it; the worker's sandbox does not hold that
      // directory at all.
      expect(result.notice).toBe(
        mode === 'worker'
          ? undefined
          : '1 matching path was left out because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.',
      );
      const open = expectOk(await createChat({ workingDirectory: wd }).call('glob', { pattern: '**/a.ts' }));
      expect(open.notice).toBeUndefined();
    });
    test('a cwd outside a restricted chat is refused', async () => {
      const chat = createChat({ workingDirectory: wd, confined: true });
      expect(expectFailure(await chat.call('glob', { pattern: '*', cwd: '..' })).classification).toBe(
        'permission_denied',
      );
    });
    test('maxResults caps and reports truncated with a notice', async () => {
      const chat = createChat({ workingDirectory: wd, parameters: { maxResults: 2 } });
      const result = expectOk(await chat.call('glob', { pattern: '**/*.ts' }));
      expect((result.matches as string[]).length).toBe(2);
      expect(result.truncated).toBe(true);
      expect(result.notice).toBe(
        '[cut: stopped at maxResults (2) matches; narrow the pattern or the cwd to see the rest]',
      );
    });
    test.each([
      [{ pattern: 7 }],
      [{ pattern: '' }],
      [{ pattern: '*', cwd: 3 }],
      [{ pattern: 'x'.repeat(1001) }],
    ])('%j is validation_failed', async (args) => {
      expect(
        expectFailure(await createChat({ workingDirectory: wd }).call('glob', args)).classification,
      ).toBe('validation_failed');
    });
    test('a cwd that is a file or missing', async () => {
      const chat = createChat({ workingDirectory: wd });
      expect(expectFailure(await chat.call('glob', { pattern: '*', cwd: 'src/a.ts' })).classification).toBe(
        'execution_error',
      );
      expect(expectFailure(await chat.call('glob', { pattern: '*', cwd: 'nope' })).classification).toBe(
        'not_found',
      );
    });
  });

  if (mode === 'worker') {
    test('the calls ran in workers: one for each reachable set (the working directory, docs, confined)', () => {
      expect(work.pool?.workers().size).toBe(3);
    });
  }
});
