import { afterAll, beforeEach, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../../src/tools/fs/freshness.ts';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('write_file and edit_file', (fileWork) => {
  // One directory, emptied before each test: the same reachable set keeps one warm worker.
  const temp = makeTempDirectory('mango-write-');
  const wd = temp.path;
  beforeEach(async () => {
    for (const name of readdirSync(wd)) rmSync(join(wd, name), { recursive: true, force: true });
    writeFileSync(join(wd, 'notes.txt'), 'alpha\nbeta\ngamma\n');
    await shareWithSandboxUser(wd, fileWork);
  });
  afterAll(() => temp.remove());

  const read = (path: string) => readFileSync(join(wd, path), 'utf8');

  describe('write_file', () => {
    test('creates a file and its missing parent directories without a prior read', async () => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      const result = expectOk(await chat.call('write_file', { path: 'a/b/new.txt', content: 'héllo\n' }));
      expect(result).toEqual({
        path: 'a/b/new.txt',
        bytesWritten: 7,
        created: true,
        sha256: sha256Hex('héllo\n'),
      });
      expect(read('a/b/new.txt')).toBe('héllo\n');
    });

    const guardCases: [string, (chat: ReturnType<typeof createChat>) => Promise<void>, string | null][] = [
      ['write without read', async () => {}, 'this chat has not read it. Read the whole file first'],
      [
        'write after a partial read',
        async (chat) => void (await chat.call('read_file', { path: 'notes.txt', maxLines: 1 })),
        'this chat has read only lines 1-1 of it. Read the remaining lines first (read_file with startLine 2)',
      ],
      [
        'write after an external change',
        async (chat) => {
          await chat.call('read_file', { path: 'notes.txt' });
          writeFileSync(join(wd, 'notes.txt'), 'changed by someone else\n');
        },
        'it changed on disk since this chat read it. Read it again with read_file',
      ],
      [
        // Coarse mtime granularity (or a tool that restores mtime, like rsync/tar) leaves size and mtime
        // equal after a real change: size+mtime alone must never prove freshness.
        'write after a same-size external change that kept the mtime',
        async (chat) => {
          const file = join(wd, 'notes.txt');
          utimesSync(file, 1_700_000_000, 1_700_000_000);
          await chat.call('read_file', { path: 'notes.txt' });
          writeFileSync(file, 'ALPHA\nBETA\nGAMMA\n');
          utimesSync(file, 1_700_000_000, 1_700_000_000);
        },
        'it changed on disk since this chat read it. Read it again with read_file',
      ],
      [
        'write after a complete read',
        async (chat) => void (await chat.call('read_file', { path: 'notes.txt' })),
        null,
      ],
      [
        'write after reads that join up to the whole file',
        async (chat) => {
          await chat.call('read_file', { path: 'notes.txt', maxLines: 2 });
          await chat.call('read_file', { path: 'notes.txt', startLine: 3 });
        },
        null,
      ],
      [
        'write after reads out of order that together cover the file',
        async (chat) => {
          await chat.call('read_file', { path: 'notes.txt', startLine: 3 });
          await chat.call('read_file', { path: 'notes.txt', startLine: 2, maxLines: 1 });
          await chat.call('read_file', { path: 'notes.txt', maxLines: 1 });
        },
        null,
      ],
      [
        // A model reads a long file in chunks with parallel calls in one response; they run concurrently.
        'write after concurrent chunked reads that together cover the file',
        async (chat) => {
          await Promise.all(
            [1, 2, 3].map((startLine) =>
              chat.call('read_file', { path: 'notes.txt', startLine, maxLines: 1 }),
            ),
          );
        },
        null,
      ],
      [
        'a gap between out-of-order reads names the missing lines',
        async (chat) => {
          await chat.call('read_file', { path: 'notes.txt', startLine: 3 });
          await chat.call('read_file', { path: 'notes.txt', maxLines: 1 });
        },
        'this chat has read only lines 1-1, 3-3 of it. Read the remaining lines first (read_file with startLine 2, maxLines 1)',
      ],
      [
        'reads with a gap do not count as complete',
        async (chat) => void (await chat.call('read_file', { path: 'notes.txt', startLine: 2 })),
        'this chat has read only lines 2-3 of it. Read the remaining lines first (read_file with startLine 1, maxLines 1)',
      ],
      [
        'write after a byte view',
        async (chat) => void (await chat.call('read_file', { path: 'notes.txt', view: 'base64' })),
        null,
      ],
      [
        'touched but unchanged content is still fresh (hash compared)',
        async (chat) => {
          await chat.call('read_file', { path: 'notes.txt' });
          utimesSync(join(wd, 'notes.txt'), new Date(2000, 1, 1), new Date(2000, 1, 1));
        },
        null,
      ],
    ];
    test.each(guardCases)('%s', async (_name, prepare, refusal) => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      await prepare(chat);
      const outcome = await chat.call('write_file', { path: 'notes.txt', content: 'new\n' });
      if (refusal === null) {
        expect(expectOk(outcome).created).toBe(false);
        expect(read('notes.txt')).toBe('new\n');
      } else {
        const error = expectFailure(outcome);
        expect(error.classification).toBe('execution_error');
        expect(error.message).toContain(refusal);
        expect(read('notes.txt')).not.toBe('new\n');
      }
    });

    test('a second write needs no re-read; another chat still does', async () => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      await chat.call('read_file', { path: 'notes.txt' });
      expectOk(await chat.call('write_file', { path: 'notes.txt', content: 'one\n' }));
      expectOk(await chat.call('write_file', { path: 'notes.txt', content: 'two\n' }));
      expect(read('notes.txt')).toBe('two\n');
      const other = createChat({ workingDirectory: wd, fileWork });
      expect(
        expectFailure(await other.call('write_file', { path: 'notes.txt', content: 'x' })).message,
      ).toContain('has not read it');
    });

    test('keeps the file mode and leaves no temp file behind', async () => {
      chmodSync(join(wd, 'notes.txt'), 0o640);
      const chat = createChat({ workingDirectory: wd, fileWork });
      await chat.call('read_file', { path: 'notes.txt' });
      expectOk(await chat.call('write_file', { path: 'notes.txt', content: 'x\n' }));
      expect(statSync(join(wd, 'notes.txt')).mode & 0o777).toBe(0o640);
      expect(readdirSync(wd)).toEqual(['notes.txt']);
    });

    test('refuses a symlink, a directory, and paths outside a restricted chat', async () => {
      symlinkSync(join(wd, 'notes.txt'), join(wd, 'link.txt'));
      mkdirSync(join(wd, 'dir'));
      const chat = createChat({ workingDirectory: join(wd, 'dir'), confined: true, fileWork });
      expect(
        expectFailure(await chat.call('write_file', { path: '../link.txt', content: 'x' })).classification,
      ).toBe('permission_denied');
      const free = createChat({ workingDirectory: wd, fileWork });
      await free.call('read_file', { path: 'link.txt' });
      expect(
        expectFailure(await free.call('write_file', { path: 'link.txt', content: 'x' })).message,
      ).toContain('it is a symlink');
      expect(expectFailure(await free.call('write_file', { path: 'dir', content: 'x' })).message).toContain(
        'it is a directory',
      );
      expect(read('notes.txt')).toBe('alpha\nbeta\ngamma\n');
    });

    test('a path with a trailing slash names a directory: refused by every file tool, nothing written', async () => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      await chat.call('read_file', { path: 'notes.txt' });
      const cases: [string, Record<string, unknown>][] = [
        ['write_file', { path: 'newdir/', content: 'x' }],
        ['write_file', { path: 'notes.txt/', content: 'x' }],
        ['edit_file', { path: 'notes.txt/', oldString: 'alpha', newString: 'ALPHA' }],
        ['read_file', { path: 'notes.txt/' }],
      ];
      for (const [name, args] of cases) {
        const error = expectFailure(await chat.call(name, args));
        expect({ name, args, classification: error.classification }).toEqual({
          name,
          args,
          classification: 'validation_failed',
        });
        expect(error.message).toContain('ends with "/", so it names a directory');
      }
      expect(readdirSync(wd)).toEqual(['notes.txt']);
      expect(read('notes.txt')).toBe('alpha\nbeta\ngamma\n');
    });

    test('a missing content argument is validation_failed', async () => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      expect(expectFailure(await chat.call('write_file', { path: 'x.txt' })).classification).toBe(
        'validation_failed',
      );
    });
  });

  describe('edit_file', () => {
    async function readChat() {
      const chat = createChat({ workingDirectory: wd, fileWork });
      await chat.call('read_file', { path: 'notes.txt' });
      return chat;
    }

    test('replaces a unique string and reports the first changed line', async () => {
      const chat = await readChat();
      const result = expectOk(
        await chat.call('edit_file', { path: 'notes.txt', oldString: 'gamma', newString: 'GAMMA' }),
      );
      expect(result).toEqual({
        path: 'notes.txt',
        replacements: 1,
        sha256: sha256Hex('alpha\nbeta\nGAMMA\n'),
        firstChangedLine: 3,
      });
      expect(read('notes.txt')).toBe('alpha\nbeta\nGAMMA\n');
    });

    test('a byte-order mark and CRLF line ends outside the edit are kept byte for byte', async () => {
      const original = '\uFEFFalpha\r\nbeta\r\ngamma\r\n';
      writeFileSync(join(wd, 'bom.txt'), original);
      const chat = createChat({ workingDirectory: wd, fileWork });
      await chat.call('read_file', { path: 'bom.txt' });
      const result = expectOk(
        await chat.call('edit_file', { path: 'bom.txt', oldString: 'beta', newString: 'BETA' }),
      );
      const expected = '\uFEFFalpha\r\nBETA\r\ngamma\r\n';
      expect(readFileSync(join(wd, 'bom.txt'))).toEqual(Buffer.from(expected));
      expect(result).toEqual({
        path: 'bom.txt',
        replacements: 1,
        sha256: sha256Hex(expected),
        firstChangedLine: 2,
      });
    });

    test('a multi-line edit of a CRLF file matches as read_file showed it (without the CR) and keeps CRLF', async () => {
      writeFileSync(join(wd, 'crlf.txt'), 'alpha\r\nbeta\r\ngamma\r\n');
      const chat = createChat({ workingDirectory: wd, fileWork });
      const shown = expectOk(await chat.call('read_file', { path: 'crlf.txt' }));
      expect(shown.content).toBe('     1\talpha\n     2\tbeta\n     3\tgamma');
      const result = expectOk(
        await chat.call('edit_file', { path: 'crlf.txt', oldString: 'beta\ngamma', newString: 'B\nG\nH' }),
      );
      const expected = 'alpha\r\nB\r\nG\r\nH\r\n';
      expect(readFileSync(join(wd, 'crlf.txt'), 'utf8')).toBe(expected);
      expect(result).toEqual({
        path: 'crlf.txt',
        replacements: 1,
        sha256: sha256Hex(expected),
        firstChangedLine: 2,
      });
    });

    test('successive edits need no re-read', async () => {
      const chat = await readChat();
      expectOk(await chat.call('edit_file', { path: 'notes.txt', oldString: 'alpha', newString: 'A' }));
      expectOk(await chat.call('edit_file', { path: 'notes.txt', oldString: 'beta', newString: 'B' }));
      expect(read('notes.txt')).toBe('A\nB\ngamma\n');
    });

    const uniqueness: [string, Record<string, unknown>, string][] = [
      ['zero matches', { oldString: 'delta', newString: 'x' }, 'oldString was not found in "notes.txt"'],
      [
        'two matches without replaceAll',
        { oldString: 'a\n', newString: 'x\n' },
        'oldString occurs 3 times in "notes.txt"',
      ],
      ['identical strings', { oldString: 'beta', newString: 'beta' }, 'identical'],
      ['empty oldString', { oldString: '', newString: 'x' }, 'at least 1 character'],
    ];
    test.each(uniqueness)('%s is refused', async (_name, args, message) => {
      const chat = await readChat();
      const error = expectFailure(await chat.call('edit_file', { path: 'notes.txt', ...args }));
      expect(error.classification).toBe('validation_failed');
      expect(error.message).toContain(message);
      expect(read('notes.txt')).toBe('alpha\nbeta\ngamma\n');
    });

    test('replaceAll replaces every occurrence literally', async () => {
      const chat = await readChat();
      const result = expectOk(
        await chat.call('edit_file', {
          path: 'notes.txt',
          oldString: 'a\n',
          newString: '$&!\n',
          replaceAll: true,
        }),
      );
      expect([result.replacements, result.firstChangedLine]).toEqual([3, 1]);
      expect(read('notes.txt')).toBe('alph$&!\nbet$&!\ngamm$&!\n');
    });

    test('edit without read, and of a missing file', async () => {
      const chat = createChat({ workingDirectory: wd, fileWork });
      expect(
        expectFailure(await chat.call('edit_file', { path: 'notes.txt', oldString: 'beta', newString: 'x' }))
          .message,
      ).toContain('has not read it');
      expect(
        expectFailure(await chat.call('edit_file', { path: 'nope.txt', oldString: 'a', newString: 'b' }))
          .classification,
      ).toBe('not_found');
    });
  });
});
