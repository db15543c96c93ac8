/**
 * Walks decide on what is opened: glob, grep and list_directory report nothing outside a confined chat,
 * whatever the pattern looks like (`..` anywhere, `./..`, absolute patterns) and through symlinked
 * directories (`etc/*` where `etc -> /etc` lists nothing), while patterns that stay inside still work and
 * their results pass back into read_file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChatFixture, createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('walks', (fileWork) => {
  const temp = makeTempDirectory('mango-walks-');
  const root = temp.path;
  const ws = join(root, 'ws');
  const outside = join(root, 'outside');

  beforeAll(async () => {
    mkdirSync(join(ws, 'inner', 'deep'), { recursive: true });
    mkdirSync(outside);
    mkdirSync(join(root, 'ws-sibling'));
    writeFileSync(join(ws, 'a.txt'), 'needle a\n');
    writeFileSync(join(ws, 'inner', 'b.txt'), 'needle b\n');
    writeFileSync(join(ws, 'inner', 'deep', 'c.txt'), 'needle c\n');
    writeFileSync(join(outside, 'secret.txt'), 'needle secret\n');
    writeFileSync(join(root, 'ws-sibling', 'x.txt'), 'needle sibling\n');
    symlinkSync('/etc', join(ws, 'etc'));
    symlinkSync(root, join(ws, 'up'));
    symlinkSync(outside, join(ws, 'outlink'));
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'inner', 'secret-link.txt'));
    await shareWithSandboxUser(ws, fileWork);
  });
  afterAll(() => temp.remove());

  const confined: ChatFixture = { workingDirectory: ws, homeDirectory: ws, confined: true, fileWork };

  describe('glob lists nothing outside a confined chat', () => {
    // Each pattern reaches out of the working directory; what is reported is only what lies inside it
    // (the working directory itself is `.`), never a name from outside.
    const tree = ['.', 'a.txt', 'inner', 'inner/b.txt', 'inner/deep', 'inner/deep/c.txt'];
    const escaping: [string, string[]][] = [
      ['../*', ['.']],
      ['./../*', ['.']],
      ['../**', tree],
      ['inner/../../*', ['.']],
      ['inner/../../outside/*', []],
      ['inner/deep/../../../outside/*', []],
      ['missing/../../outside/*', []],
      ['./inner/./../../outside/secret.txt', []],
      ['../ws-sibling/*', []],
      ['../ws/../outside/*', []],
      [`${outside}/*`, []],
      [`${root}/**/secret.txt`, []],
      ['/etc/*', []],
      ['/etc/host*', []],
      ['etc/*', []],
      ['etc/**', []],
      ['etc/host*', []],
      ['up/*', ['up/ws']],
      ['up/outside/*', []],
      ['up/ws/../outside/*', []],
      ['outlink/*', []],
      ['outlink/**', []],
      ['/proc/self/*', []],
      ['../../../../../../../../etc/*', []],
    ];
    test.each(escaping)('%s', async (pattern, expected) => {
      const chat = createChat(confined);
      const result = expectOk(await chat.call('glob', { pattern }));
      expect(result.matches).toEqual(expected);
      expect(result.truncated).toBe(false);
      // What is reported is reachable under the name it was reported by.
      for (const match of expected) {
        const outcome = await chat.call('list_directory', { path: match });
        if (!outcome.ok) expect(outcome.error.classification).toBe('validation_failed'); // a file
      }
    });

    test('a cwd outside is refused, and so is one through a symlinked directory', async () => {
      const chat = createChat(confined);
      for (const cwd of ['..', 'etc', 'up', 'outlink', '/etc', outside]) {
        expect(expectFailure(await chat.call('glob', { pattern: '*', cwd })).classification).toBe(
          'permission_denied',
        );
      }
    });

    test('patterns that stay inside still match, re-anchored, and pass back into read_file', async () => {
      const chat = createChat(confined);
      const cases: [string, string[]][] = [
        ['inner/../*.txt', ['a.txt']],
        ['./inner/*.txt', ['inner/b.txt']],
        ['inner/deep/../../a.txt', ['a.txt']],
        [`${ws}/inner/*`, ['inner/b.txt', 'inner/deep']],
        ['../ws/a.txt', ['a.txt']],
        ['**/*.txt', ['a.txt', 'inner/b.txt', 'inner/deep/c.txt']],
      ];
      for (const [pattern, expected] of cases) {
        const result = expectOk(await chat.call('glob', { pattern }));
        expect([pattern, result.matches]).toEqual([pattern, expected]);
      }
      const read = expectOk(await chat.call('read_file', { path: 'a.txt' }));
      expect(read.content).toBe('     1\tneedle a');
    });

    test('symlinks pointing outside are left out of a listing, and the model is told how many', async () => {
      const result = expectOk(await createChat(confined).call('glob', { pattern: '**' }));
      expect(result.matches).toEqual(['a.txt', 'inner', 'inner/b.txt', 'inner/deep', 'inner/deep/c.txt']);
      expect(result.notice).toBe(
        '4 matching paths were left out because the path policy refuses them (outside what this chat can reach, outside allowedPaths, or under deniedPaths); they cannot be read in this chat.',
      );
    });
  });

  describe('grep and list_directory', () => {
    test('grep searches only what the chat can reach and never follows a symlinked directory', async () => {
      const chat = createChat(confined);
      const result = expectOk(await chat.call('grep', { pattern: 'needle', path: '.' }));
      expect(result.matches).toEqual([
        { file: 'a.txt', line: 1, text: 'needle a' },
        { file: 'inner/b.txt', line: 1, text: 'needle b' },
        { file: 'inner/deep/c.txt', line: 1, text: 'needle c' },
      ]);
      for (const path of ['etc', 'up', 'outlink', 'inner/secret-link.txt', '../outside', '/etc/hostname']) {
        expect(expectFailure(await chat.call('grep', { pattern: 'x', path })).classification).toBe(
          'permission_denied',
        );
      }
      const globbed = expectOk(await chat.call('grep', { pattern: 'needle', path: '.', glob: '../**' }));
      expect(globbed.matches).toEqual([]);
    });

    test('list_directory leaves out links pointing outside and refuses directories outside', async () => {
      const chat = createChat(confined);
      const listing = expectOk(await chat.call('list_directory', { path: '.' }));
      expect(listing.entries).toEqual([
        { name: 'a.txt', type: 'file' },
        { name: 'inner', type: 'directory' },
      ]);
      expect(listing.notice).toBe(
        '3 entries were left out because the path policy refuses them (outside what this chat can reach, outside allowedPaths, or under deniedPaths); they cannot be read in this chat.',
      );
      for (const path of ['etc', 'up', 'outlink', '..', 'inner/../..']) {
        expect(expectFailure(await chat.call('list_directory', { path })).classification).toBe(
          'permission_denied',
        );
      }
    });

    test('an unconfined chat may follow the same link: the set, not the spelling, decides', async () => {
      // A worker serves no operator set: there, a user's unrestricted chat that has `outside` granted.
      const granted =
        fileWork === 'worker'
          ? {
              workspaces: [
                { path: ws, access: 'read-write' as const, kind: 'personal' as const },
                { path: outside, access: 'read-only' as const, kind: 'granted' as const },
              ],
            }
          : {};
      const chat = createChat({ workingDirectory: ws, homeDirectory: ws, fileWork, ...granted });
      const result = expectOk(await chat.call('glob', { pattern: 'outlink/*' }));
      expect(result.matches).toEqual(['outlink/secret.txt']);
      expect(expectOk(await chat.call('read_file', { path: 'outlink/secret.txt' })).content).toBe(
        '     1\tneedle secret',
      );
    });
  });
});
