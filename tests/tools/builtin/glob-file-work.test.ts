/**
 * glob wherever its file work runs (tests/helpers/test-file-workers.ts `FILE_WORK`): through the user's
 * file worker in a real bubblewrap sandbox, as the user's uid, and in this process, with the same exact
 * results: matches, dotfiles, the cap, what the policy refuses (outside the reachable set, denied, the
 * server's own directories), symlinks listed but not followed, a literal prefix through a link spelled
 * as the pattern spelled it, and a cwd that cannot be searched. Then the second wall: what a glob's
 * outcome names is decided again by the server's policy, whatever the file work said.
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
import { inProcessFileOperations, installFileOperations } from '../../../src/sandbox/host-file-operations.ts';
import { computeReachableSet, type ReachableSet } from '../../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../../src/tools/freshness-ledger.ts';
import type { GlobOutcome } from '../../../src/tools/fs/file-operations.ts';
import type { ToolExecutionResult } from '../../../src/tools/types.ts';
import { expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';
import { pathList } from '../../helpers/tool-context.ts';
import { useToolFileWork } from '../../helpers/tool-file-work.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';

// Outside /tmp, like a deployment's workspaces: the sandbox's /tmp is its own.
const base = realpathSync(
  mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-glob-work-')),
);
const ws = join(base, 'ws');
const outside = join(base, 'outside');
const served = join(ws, 'served');
const REFUSED_ONE =
  '1 matching path was left out because the path policy refuses it (outside what this chat can reach, outside allowedPaths, or under deniedPaths); it cannot be read in this chat.';
const refusedMany = (count: number) =>
  `${count} matching paths were left out because the path policy refuses them (outside what this chat can reach, outside allowedPaths, or under deniedPaths); they cannot be read in this chat.`;

function reachableSet(): ReachableSet {
  return computeReachableSet({
    workspaces: [{ path: ws, access: 'read-write', kind: 'personal' }],
    workingDirectory: ws,
    homeDirectory: ws,
    confined: false,
    protectedPaths: [served, '/proc', '/sys', '/dev'],
  });
}

function glob(
  args: Record<string, unknown>,
  parameters?: Record<string, unknown>,
): Promise<ToolExecutionResult> {
  return executeTool(
    'glob',
    args,
    { userId: 'alice', chatId: 'chat-1', reachable: reachableSet(), ledger: new InMemoryFreshnessLedger() },
    parameters ? { parameters } : undefined,
  );
}

beforeAll(() => {
  chmodSync(base, 0o755);
  for (const directory of ['src/util', 'docs', '.hidden', 'secret', 'trunc', 'served'])
    mkdirSync(join(ws, directory), { recursive: true, mode: 0o755 });
  mkdirSync(outside, { mode: 0o755 });
  for (const file of [
    'src/a.ts',
    'src/b.js',
    'src/util/c.ts',
    'docs/readme.md',
    '.hidden/h.ts',
    'secret/s.ts',
    '.env.ts',
    'trunc/1.txt',
    'trunc/2.txt',
    'trunc/3.txt',
    'served/x.ts',
  ]) {
    writeFileSync(join(ws, file), file, { mode: 0o644 });
  }
  writeFileSync(join(outside, 'o.ts'), 'o', { mode: 0o644 });
  symlinkSync(join(outside, 'o.ts'), join(ws, 'src', 'escape.ts'));
  symlinkSync(join(ws, 'src', 'a.ts'), join(ws, 'src', 'alias.ts'));
  symlinkSync('src', join(ws, 'linkdir'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe.each(FILE_WORK)('glob, file work %s', (mode) => {
  const work = useToolFileWork(mode);
  beforeAll(() => work.handTo(ws, 'alice'));

  const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'matches at any depth; a link out of reach left out, one inside listed',
      { pattern: '**/*.ts' },
      {},
      {
        pattern: '**/*.ts',
        cwd: ws,
        matches: ['secret/s.ts', 'src/a.ts', 'src/alias.ts', 'src/util/c.ts'],
        truncated: false,
        notice: REFUSED_ONE,
      },
    ],
    [
      'dotfiles with includeDotfiles',
      { pattern: '**/*.ts' },
      { includeDotfiles: true },
      {
        pattern: '**/*.ts',
        cwd: ws,
        matches: ['.env.ts', '.hidden/h.ts', 'secret/s.ts', 'src/a.ts', 'src/alias.ts', 'src/util/c.ts'],
        truncated: false,
        notice: REFUSED_ONE,
      },
    ],
    [
      "the server's own directory is left out and not walked; a link to a directory is listed, not followed",
      { pattern: '*' },
      {},
      {
        pattern: '*',
        cwd: ws,
        matches: ['docs', 'linkdir', 'secret', 'src', 'trunc'],
        truncated: false,
        notice: REFUSED_ONE,
      },
    ],
    [
      'a literal prefix through a link: matches spelled as the pattern spelled them',
      { pattern: 'linkdir/*' },
      {},
      {
        pattern: 'linkdir/*',
        cwd: ws,
        matches: ['linkdir/a.ts', 'linkdir/alias.ts', 'linkdir/b.js', 'linkdir/util'],
        truncated: false,
        notice: REFUSED_ONE,
      },
    ],
    [
      'a pattern without glob syntax names one path',
      { pattern: 'linkdir/util/c.ts' },
      {},
      { pattern: 'linkdir/util/c.ts', cwd: ws, matches: ['linkdir/util/c.ts'], truncated: false },
    ],
    [
      'denied paths are left out and counted',
      { pattern: '**/*.ts' },
      { deniedPaths: pathList('secret') },
      {
        pattern: '**/*.ts',
        cwd: ws,
        matches: ['src/a.ts', 'src/alias.ts', 'src/util/c.ts'],
        truncated: false,
        notice: refusedMany(2),
      },
    ],
    [
      'a cwd below the working directory: paths stay relative to the working directory',
      { pattern: '*.ts', cwd: 'src' },
      {},
      {
        pattern: '*.ts',
        cwd: 'src',
        matches: ['src/a.ts', 'src/alias.ts'],
        truncated: false,
        notice: REFUSED_ONE,
      },
    ],
    [
      'the absolute setting',
      { pattern: 'src/*.js' },
      { absolute: true },
      { pattern: 'src/*.js', cwd: ws, matches: [join(ws, 'src/b.js')], truncated: false },
    ],
    [
      'exactly maxResults matches are not truncated',
      { pattern: 'trunc/*' },
      { maxResults: 3 },
      {
        pattern: 'trunc/*',
        cwd: ws,
        matches: ['trunc/1.txt', 'trunc/2.txt', 'trunc/3.txt'],
        truncated: false,
      },
    ],
  ];
  test.each(cases)('%s', async (_name, args, parameters, expected) => {
    expect(expectOk(await glob(args, parameters))).toEqual(expected);
  });

  test('a pattern leading out of the reachable set finds nothing it may report', async () => {
    const result = expectOk(await glob({ pattern: '../outside/*' }));
    // In process the walk meets o.ts and the policy refuses it; the worker's sandbox does not hold that
    // directory at all, so there is nothing to meet.
    expect(result).toEqual({
      pattern: '../outside/*',
      cwd: ws,
      matches: [],
      truncated: false,
      ...(mode === 'in-process' ? { notice: REFUSED_ONE } : {}),
    });
  });

  test('more than maxResults: the first ones found, truncated, with the cap notice', async () => {
    const result = expectOk(await glob({ pattern: 'trunc/*' }, { maxResults: 2 }));
    const matches = result.matches as string[];
    expect(matches.length).toBe(2);
    expect(new Set(matches).size).toBe(2);
    for (const match of matches) expect(['trunc/1.txt', 'trunc/2.txt', 'trunc/3.txt']).toContain(match);
    expect(result.truncated).toBe(true);
    expect(result.notice).toBe(
      '[cut: stopped at maxResults (2) matches; narrow the pattern or the cwd to see the rest]',
    );
  });

  const failures: [string, string, { classification: string; message: string }][] = [
    [
      'a file',
      'src/a.ts',
      { classification: 'execution_error', message: 'cwd "src/a.ts" is not a directory.' },
    ],
    [
      'a missing directory',
      'nope',
      {
        classification: 'not_found',
        message:
          'Cannot search "nope": no such file or directory. Check the path with list_directory or glob.',
      },
    ],
    [
      'outside the reachable set',
      outside,
      {
        classification: 'permission_denied',
        message: `Access to ${JSON.stringify(outside)} is denied: it lies outside what this chat can reach, which is only ${ws} (read-write).`,
      },
    ],
    [
      "the server's own directory",
      'served',
      {
        classification: 'permission_denied',
        message: `Access to "served" (resolved to ${served}) is denied: it belongs to the server, and the server's files are never reachable from a tool.`,
      },
    ],
  ];
  test.each(failures)('a cwd that is %s is refused', async (_name, cwd, expected) => {
    expect(expectFailure(await glob({ pattern: '*', cwd }))).toEqual(expected);
  });

  if (mode === 'worker') {
    test("the walks ran in alice's one worker", () => {
      expect(work.pool?.workers().size).toBe(1);
    });
  }
});

describe('the second wall: what a glob outcome names is decided again by the server', () => {
  /** Installs file work whose glob answers `outcome`, as a worker that lies could. */
  function answering(outcome: GlobOutcome): () => void {
    return installFileOperations((context) => ({
      ...inProcessFileOperations(context),
      globFiles: async () => outcome,
    }));
  }

  test("matches outside the reachable set or in the server's own directory are left out and counted", async () => {
    const uninstall = answering({
      real: ws,
      start: ws,
      paths: [join(ws, 'src'), join(served, 'x.ts'), join(ws, 'docs')],
      truncated: false,
      refused: 2,
    });
    try {
      expect(expectOk(await glob({ pattern: '**' }))).toEqual({
        pattern: '**',
        cwd: ws,
        matches: ['docs', 'src'],
        truncated: false,
        notice: refusedMany(3),
      });
    } finally {
      uninstall();
    }
  });

  test('a match the pattern cannot have found (outside its start) is left out', async () => {
    const uninstall = answering({
      real: ws,
      start: join(ws, 'src'),
      paths: [join(ws, 'src', 'a.ts'), join(ws, 'docs', 'readme.md')],
      truncated: false,
      refused: 0,
    });
    try {
      expect(expectOk(await glob({ pattern: 'src/*' }))).toEqual({
        pattern: 'src/*',
        cwd: ws,
        matches: ['src/a.ts'],
        truncated: false,
        notice: REFUSED_ONE,
      });
    } finally {
      uninstall();
    }
  });

  test('a cwd outside the reachable set fails the call, whatever matches came with it', async () => {
    const uninstall = answering({
      real: outside,
      start: outside,
      paths: [join(outside, 'o.ts')],
      truncated: false,
      refused: 0,
    });
    try {
      expect(expectFailure(await glob({ pattern: '*' }))).toEqual({
        classification: 'permission_denied',
        message: `Access to "." (resolved to ${outside}) is denied: it lies outside what this chat can reach, which is only ${ws} (read-write).`,
      });
    } finally {
      uninstall();
    }
  });
});
