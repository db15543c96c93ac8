/**
 * The two-way path convention (docs/tools.md, "Paths and policy"): every path glob and grep report, passed
 * straight back into read_file in the same chat, reaches the file that matched — whatever the search root,
 * with a working directory reached through a symlink, with matches outside it, and with no directory bound.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../../src/tools/fs/freshness.ts';
import { createChat, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('result paths round-trip', (fileWork) => {
  const temp = makeTempDirectory('mango-roundtrip-');
  const project = join(temp.path, 'project');
  const outside = join(temp.path, 'outside');
  const contents: Record<string, string> = {
    [join(project, 'src/a.ts')]: 'needle a\n',
    [join(project, 'src/deep/b.ts')]: 'needle b\n',
    [join(project, 'top.ts')]: 'needle top\n',
    [join(outside, 'o.ts')]: 'needle outside\n',
  };

  beforeAll(async () => {
    mkdirSync(join(project, 'src/deep'), { recursive: true });
    mkdirSync(outside);
    for (const [path, text] of Object.entries(contents)) writeFileSync(path, text);
    symlinkSync(project, join(temp.path, 'project-link'));
    symlinkSync(outside, join(project, 'outside-link'));
    await shareWithSandboxUser(temp.path, fileWork);
  });
  afterAll(() => temp.remove());

  const cases: [string, string | undefined, Record<string, unknown>, Record<string, unknown>][] = [
    ['root = working directory', project, { pattern: '**/*.ts' }, { pattern: 'needle', path: '.' }],
    ['root below it', project, { pattern: '**/*.ts', cwd: 'src' }, { pattern: 'needle', path: 'src' }],
    ['single file', project, { pattern: 'a.ts', cwd: 'src' }, { pattern: 'needle', path: 'src/a.ts' }],
    ['root outside it', project, { pattern: '*.ts', cwd: outside }, { pattern: 'needle', path: outside }],
    [
      'root through a symlink out',
      project,
      { pattern: '*.ts', cwd: 'outside-link' },
      { pattern: 'needle', path: 'outside-link' },
    ],
    [
      'working directory reached through a symlink',
      join(temp.path, 'project-link'),
      { pattern: '**/*.ts', cwd: 'src' },
      { pattern: 'needle', path: 'src' },
    ],
    [
      'root above it',
      join(project, 'src'),
      { pattern: '**/*.ts', cwd: '..' },
      { pattern: 'needle', path: '..' },
    ],
    [
      'no working directory bound',
      undefined,
      { pattern: '**/*.ts', cwd: project },
      { pattern: 'needle', path: project },
    ],
  ];

  // A worker serves no operator set: there, the user's workspace holds the whole tree, and a chat
  // bound to no directory of its own starts in it.
  const workspaces =
    fileWork === 'worker'
      ? { workspaces: [{ path: temp.path, access: 'read-write' as const, kind: 'personal' as const }] }
      : {};
  const chatIn = (workingDirectory: string | undefined) =>
    createChat({
      workingDirectory: workingDirectory ?? (fileWork === 'worker' ? temp.path : undefined),
      fileWork,
      ...workspaces,
    });

  describe.each(cases)('%s', (_name, workingDirectory, globArgs, grepArgs) => {
    async function expectReadable(chat: ReturnType<typeof createChat>, paths: string[]) {
      expect(paths.length).toBeGreaterThan(0);
      for (const path of paths) {
        const read = expectOk(await chat.call('read_file', { path }));
        const hashes = Object.values(contents).map((text) => sha256Hex(text));
        expect({ path, known: hashes.includes(read.sha256 as string) }).toEqual({ path, known: true });
      }
    }

    test('glob matches pass into read_file', async () => {
      const chat = chatIn(workingDirectory);
      const result = expectOk(await chat.call('glob', globArgs));
      await expectReadable(
        chat,
        (result.matches as string[]).filter((path) => path.endsWith('.ts')),
      );
    });

    test('grep matches pass into read_file', async () => {
      const chat = chatIn(workingDirectory);
      const result = expectOk(await chat.call('grep', grepArgs));
      await expectReadable(
        chat,
        (result.matches as { file: string }[]).map((match) => match.file),
      );
    });
  });
});
