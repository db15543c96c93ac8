/**
 * Every file tool, through executeTool with a real reachable set over real directories: the protected set
 * (the kernel's views, the data directory, the installation directory, other users' workspaces) is
 * refused in every view with the same sentence and one log line; outside the set a refusal names what the
 * chat can reach; read-only roots refuse writes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setAccessLogWriter } from '../../../src/tools/access/access-log.ts';
import { computeProtectedPaths, INSTALLATION_DIRECTORY } from '../../../src/tools/access/protected-paths.ts';
import { type ChatFixture, createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('file tools and the protected set', (fileWork) => {
  const temp = makeTempDirectory('mango-isolation-');
  const root = temp.path;
  const workspaces = join(root, 'workspaces');
  const home = join(workspaces, 'u1');
  const otherUser = join(workspaces, 'u2');
  const dataDirectory = join(root, 'data');
  const shared = join(root, 'shared');
  const outside = join(root, 'outside');
  const protectedPaths = computeProtectedPaths({ dataDirectory, workspacesDirectory: workspaces });
  const NOW = Date.parse('2026-12-01T10:00:00Z');

  beforeAll(async () => {
    for (const directory of [home, otherUser, dataDirectory, shared, outside, join(home, 'sub')]) {
      mkdirSync(directory, { recursive: true });
    }
    writeFileSync(join(home, 'a.txt'), 'mine\n');
    writeFileSync(join(home, 'sub', 'b.txt'), 'sub\n');
    writeFileSync(join(otherUser, 'secret.txt'), 'u2 secret\n');
    writeFileSync(join(dataDirectory, 'mango.db'), 'database\n');
    writeFileSync(join(shared, 'doc.txt'), 'shared doc\n');
    writeFileSync(join(outside, 'secret.txt'), 'outside\n');
    symlinkSync('/proc/self', join(home, 'proc'));
    symlinkSync(dataDirectory, join(home, 'data'));
    symlinkSync(otherUser, join(home, 'other'));
    symlinkSync(INSTALLATION_DIRECTORY, join(home, 'app'));
    await shareWithSandboxUser(home, fileWork);
  });
  afterAll(() => temp.remove());

  let logLines: string[] = [];
  let restoreLog: (() => void) | undefined;
  const captureLog = () => {
    logLines = [];
    restoreLog = setAccessLogWriter((line) => logLines.push(line));
  };
  afterEach(() => restoreLog?.());

  /** An unrestricted chat of u1: the personal workspace read-write, `shared` granted read-only. */
  const unrestricted: ChatFixture = {
    workingDirectory: home,
    homeDirectory: home,
    workspaces: [
      { path: home, access: 'read-write', kind: 'personal' },
      { path: shared, access: 'read-only', kind: 'granted' },
    ],
    protectedPaths,
    now: () => NOW,
    fileWork,
  };
  const confined: ChatFixture = { ...unrestricted, confined: true };
  /** Operator mode from the temp root: everything but the protected set, personal workspaces included. */
  const operator: ChatFixture = {
    workingDirectory: root,
    homeDirectory: root,
    protectedPaths,
    now: () => NOW,
  };

  const serverSentence = "it belongs to the server, and the server's files are never reachable from a tool.";

  describe('the protected set is refused in every view, with one sentence and one log line', () => {
    // `/proc/self` is the process that resolves it: the worker is PID 2 of its sandbox's PID namespace
    // (its launcher is 1).
    const pid = fileWork === 'worker' ? 2 : process.pid;
    // [name, tool, args, path as shown, real location shown in the message (undefined: same as shown), protected path]
    const cases: [string, string, Record<string, unknown>, string, string | undefined, string][] = [
      [
        'read_file text of /proc/self/environ',
        'read_file',
        { path: '/proc/self/environ' },
        '/proc/self/environ',
        undefined,
        '/proc',
      ],
      [
        'read_file hex of /proc/self/environ',
        'read_file',
        { path: '/proc/self/environ', view: 'hex' },
        '/proc/self/environ',
        undefined,
        '/proc',
      ],
      [
        'read_file base64 of /proc/self/cmdline',
        'read_file',
        { path: '/proc/self/cmdline', view: 'base64' },
        '/proc/self/cmdline',
        undefined,
        '/proc',
      ],
      [
        'read_file through /proc/self/root',
        'read_file',
        { path: '/proc/self/root/etc/hostname' },
        '/proc/self/root/etc/hostname',
        undefined,
        '/proc',
      ],
      [
        'read_file through a symlink to /proc/self',
        'read_file',
        { path: 'proc/environ' },
        'proc/environ',
        `/proc/${pid}/environ`,
        '/proc',
      ],
      [
        'list_directory /proc/self',
        'list_directory',
        { path: '/proc/self' },
        '/proc/self',
        undefined,
        '/proc',
      ],
      [
        'list_directory through a symlink',
        'list_directory',
        { path: 'proc' },
        'proc',
        `/proc/${pid}`,
        '/proc',
      ],
      [
        'glob with cwd /proc/self',
        'glob',
        { pattern: '*', cwd: '/proc/self' },
        '/proc/self',
        undefined,
        '/proc',
      ],
      [
        'grep /proc/self/status',
        'grep',
        { pattern: 'Name', path: '/proc/self/status' },
        '/proc/self/status',
        undefined,
        '/proc',
      ],
      ['grep /sys', 'grep', { pattern: 'x', path: '/sys/kernel' }, '/sys/kernel', undefined, '/sys'],
      [
        'read_file /dev/zero',
        'read_file',
        { path: '/dev/zero', view: 'hex' },
        '/dev/zero',
        undefined,
        '/dev',
      ],
      [
        'read_file the database',
        'read_file',
        { path: join(dataDirectory, 'mango.db') },
        join(dataDirectory, 'mango.db'),
        undefined,
        dataDirectory,
      ],
      [
        'read_file the database through a symlink',
        'read_file',
        { path: 'data/mango.db' },
        'data/mango.db',
        join(dataDirectory, 'mango.db'),
        dataDirectory,
      ],
      [
        'write_file into the data directory',
        'write_file',
        { path: 'data/new.db', content: 'x' },
        'data/new.db',
        join(dataDirectory, 'new.db'),
        dataDirectory,
      ],
      [
        'list_directory the data directory',
        'list_directory',
        { path: dataDirectory },
        dataDirectory,
        undefined,
        dataDirectory,
      ],
      [
        'read_file the installation',
        'read_file',
        { path: 'app/package.json' },
        'app/package.json',
        join(INSTALLATION_DIRECTORY, 'package.json'),
        INSTALLATION_DIRECTORY,
      ],
      [
        'grep the installation',
        'grep',
        { pattern: 'x', path: INSTALLATION_DIRECTORY },
        INSTALLATION_DIRECTORY,
        undefined,
        INSTALLATION_DIRECTORY,
      ],
      [
        "read_file another user's workspace",
        'read_file',
        { path: join(otherUser, 'secret.txt') },
        join(otherUser, 'secret.txt'),
        undefined,
        workspaces,
      ],
      [
        "read_file another user's workspace via ..",
        'read_file',
        { path: '../u2/secret.txt' },
        '../u2/secret.txt',
        join(otherUser, 'secret.txt'),
        workspaces,
      ],
      [
        "glob in another user's workspace",
        'glob',
        { pattern: '*', cwd: 'other' },
        'other',
        otherUser,
        workspaces,
      ],
    ];
    for (const [bindingName, fixture] of [
      ['unrestricted', unrestricted],
      ['confined', confined],
      ['operator mode', operator],
    ] as const) {
      // Operator mode runs from elsewhere, so only the cases naming an absolute path apply to it.
      const applicable = fixture === operator ? cases.filter((row) => row[3].startsWith('/')) : cases;
      test.each(applicable)(`${bindingName}: %s`, async (_name, tool, args, shown, real, protectedPath) => {
        captureLog();
        const failure = expectFailure(await createChat(fixture).call(tool, args));
        const where =
          real === undefined ? JSON.stringify(shown) : `${JSON.stringify(shown)} (resolved to ${real})`;
        expect(failure).toEqual({
          classification: 'permission_denied',
          message: `Access to ${where} is denied: ${serverSentence}`,
        });
        expect(logLines.map((line) => JSON.parse(line))).toEqual([
          {
            time: '2026-12-01T10:00:00.000Z',
            level: 'warn',
            event: 'tool_access_refused',
            reason: 'protected_path',
            userId: 'user-1',
            chatId: 'chat-1',
            path: shown,
            real: real ?? shown,
            protectedPath,
          },
        ]);
      });
    }

    test('nothing of the server was changed or created', () => {
      expect(readFileSync(join(dataDirectory, 'mango.db'), 'utf8')).toBe('database\n');
      expect(readdirSync(dataDirectory)).toEqual(['mango.db']);
    });

    test('operator mode: every personal workspace is out of reach (the workspaces directory is protected)', async () => {
      captureLog();
      const failure = expectFailure(
        await createChat(operator).call('read_file', { path: 'workspaces/u1/a.txt' }),
      );
      expect(failure.message).toBe(
        `Access to "workspaces/u1/a.txt" (resolved to ${join(home, 'a.txt')}) is denied: ${serverSentence}`,
      );
      expect(logLines.map((line) => JSON.parse(line).protectedPath)).toEqual([workspaces]);
    });

    test('walks leave protected entries out without naming them', async () => {
      const chat = createChat(unrestricted);
      const listing = expectOk(await chat.call('list_directory', { path: '.' }));
      expect(listing.entries).toEqual([
        { name: 'a.txt', type: 'file' },
        { name: 'sub', type: 'directory' },
      ]);
      expect(listing.notice).toBe(
        '4 entries were left out because the path policy refuses them (outside what this chat can reach, outside allowedPaths, or under deniedPaths); they cannot be read in this chat.',
      );
      const globbed = expectOk(await chat.call('glob', { pattern: '/proc/self/*' }));
      expect(globbed.matches).toEqual([]);
      const viaLink = expectOk(await chat.call('glob', { pattern: 'proc/*' }));
      expect(viaLink.matches).toEqual([]);
      const grepped = expectOk(await chat.call('grep', { pattern: '.', path: '.' }));
      expect(grepped.matches).toEqual([
        { file: 'a.txt', line: 1, text: 'mine' },
        { file: 'sub/b.txt', line: 1, text: 'sub' },
      ]);
    });
  });

  describe('outside the reachable set', () => {
    test('the refusal names what this chat can reach', async () => {
      const failure = expectFailure(
        await createChat(unrestricted).call('read_file', { path: join(outside, 'secret.txt') }),
      );
      expect(failure).toEqual({
        classification: 'permission_denied',
        message: `Access to ${JSON.stringify(join(outside, 'secret.txt'))} is denied: it lies outside what this chat can reach, which is only ${home} (read-write), ${shared} (read-only).`,
      });
      const confinedFailure = expectFailure(
        await createChat({ ...confined, workingDirectory: join(home, 'sub') }).call('read_file', {
          path: '../a.txt',
        }),
      );
      expect(confinedFailure.message).toBe(
        `Access to "../a.txt" (resolved to ${join(home, 'a.txt')}) is denied: it lies outside what this chat can reach, which is only ${join(home, 'sub')} (read-write).`,
      );
    });

    test('~ is the personal workspace', async () => {
      const result = expectOk(await createChat(confined).call('read_file', { path: '~/a.txt' }));
      expect(result.content).toBe('     1\tmine');
    });
  });

  describe('read-only roots', () => {
    test('reads work; write_file and edit_file are refused and the file is unchanged', async () => {
      const chat = createChat(unrestricted);
      const target = join(shared, 'doc.txt');
      expect(expectOk(await chat.call('read_file', { path: target })).content).toBe('     1\tshared doc');
      const message = (shown: string) =>
        `Cannot write ${JSON.stringify(shown)}: it lies in ${shared}, which this chat may only read (read-only).`;
      expect(expectFailure(await chat.call('write_file', { path: target, content: 'changed' }))).toEqual({
        classification: 'permission_denied',
        message: message(target),
      });
      expect(
        expectFailure(await chat.call('edit_file', { path: target, oldString: 'shared', newString: 'mine' })),
      ).toEqual({ classification: 'permission_denied', message: message(target) });
      const created = join(shared, 'new', 'file.txt');
      expect(expectFailure(await chat.call('write_file', { path: created, content: 'x' })).message).toBe(
        message(created),
      );
      expect(readFileSync(target, 'utf8')).toBe('shared doc\n');
      expect(expectOk(await chat.call('glob', { pattern: '*', cwd: shared })).matches).toEqual([target]);
    });

    test('a chat confined to a read-only directory refuses relative writes', async () => {
      const chat = createChat({ ...confined, workingDirectory: shared });
      expect(expectFailure(await chat.call('write_file', { path: 'x.txt', content: 'x' })).message).toBe(
        `Cannot write "x.txt" (resolved to ${join(shared, 'x.txt')}): it lies in ${shared}, which this chat may only read (read-only).`,
      );
    });
  });

  describe('hard links (see docs/decisions/2026-12-01-hard-links.md)', () => {
    test('a write through a hard link replaces the name in the workspace, never the file outside', async () => {
      const victim = join(outside, 'linked.txt');
      writeFileSync(victim, 'outside original\n');
      const inside = join(home, 'linked.txt');
      linkSync(victim, inside);
      const chat = createChat(confined);
      expect(expectOk(await chat.call('read_file', { path: 'linked.txt' })).content).toBe(
        '     1\toutside original',
      );
      expectOk(await chat.call('write_file', { path: 'linked.txt', content: 'rewritten\n' }));
      expect(readFileSync(victim, 'utf8')).toBe('outside original\n');
      expect(readFileSync(inside, 'utf8')).toBe('rewritten\n');
    });
  });
});
