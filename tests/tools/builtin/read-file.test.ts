import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { numberLine, renderTextWindow } from '../../../src/tools/builtin/read-file.ts';
import { sha256Hex } from '../../../src/tools/fs/freshness.ts';
import { readBounded } from '../../../src/tools/fs/read-bounded.ts';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

describeFileWork('read_file', (fileWork) => {
  const temp = makeTempDirectory('mango-read-');
  const outside = makeTempDirectory('mango-read-outside-');
  const wd = temp.path;
  const binary = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x0a, 0xff]);

  beforeAll(async () => {
    writeFileSync(join(wd, 'three.txt'), 'one\ntwo\nthree\n');
    writeFileSync(join(wd, 'crlf.txt'), 'a\r\nb\r\n');
    writeFileSync(join(wd, 'empty.txt'), '');
    writeFileSync(join(wd, 'no-newline.txt'), 'x\ny');
    writeFileSync(join(wd, 'image.png'), binary);
    writeFileSync(join(wd, 'long-line.txt'), `${'x'.repeat(2500)}\nshort\n`);
    writeFileSync(
      join(wd, 'many.txt'),
      Array.from({ length: 2500 }, (_, index) => `line ${index + 1}`).join('\n'),
    );
    writeFileSync(join(wd, 'wide.txt'), Array.from({ length: 300 }, () => 'w'.repeat(1500)).join('\n'));
    writeFileSync(join(wd, 'ten-mib-plus-one.txt'), new Uint8Array(10 * 1024 * 1024 + 1).fill(97));
    writeFileSync(join(wd, 'bytes-256k-plus-one.bin'), new Uint8Array(256 * 1024 + 1));
    writeFileSync(join(wd, 'bytes-256k.bin'), new Uint8Array(256 * 1024));
    mkdirSync(join(wd, 'dir'));
    writeFileSync(join(outside.path, 'secret.txt'), 'secret');
    symlinkSync(join(outside.path, 'secret.txt'), join(wd, 'escape.txt'));
    await shareWithSandboxUser(wd, fileWork);
  });
  afterAll(() => {
    temp.remove();
    outside.remove();
  });

  const chat = () => createChat({ workingDirectory: wd, confined: true, fileWork });

  describe('text view', () => {
    test('numbers lines like cat -n and returns exactly the spec shape', async () => {
      const result = expectOk(await chat().call('read_file', { path: 'three.txt' }));
      expect(result).toEqual({
        content: '     1\tone\n     2\ttwo\n     3\tthree',
        path: 'three.txt',
        size: 14,
        sha256: sha256Hex('one\ntwo\nthree\n'),
        totalLines: 3,
        startLine: 1,
        endLine: 3,
        truncated: false,
      });
    });

    const windows: [string, Record<string, unknown>, string, number, number, boolean][] = [
      [
        'startLine and maxLines',
        { path: 'three.txt', startLine: 2, maxLines: 1 },
        '     2\ttwo',
        2,
        2,
        false,
      ],
      ['last line without newline', { path: 'no-newline.txt', startLine: 2 }, '     2\ty', 2, 2, false],
      ['CRLF endings are not shown', { path: 'crlf.txt' }, '     1\ta\n     2\tb', 1, 2, false],
      ['empty file', { path: 'empty.txt' }, '', 1, 0, false],
      [
        'explicit maxLines is not truncation',
        { path: 'many.txt', maxLines: 2 },
        '     1\tline 1\n     2\tline 2',
        1,
        2,
        false,
      ],
    ];
    test.each(windows)('%s', async (_name, args, content, startLine, endLine, truncated) => {
      const result = expectOk(await chat().call('read_file', args));
      expect([result.content, result.startLine, result.endLine, result.truncated]).toEqual([
        content,
        startLine,
        endLine,
        truncated,
      ]);
    });

    test('the default 2000-line window stops early and says how to read on', async () => {
      const result = expectOk(await chat().call('read_file', { path: 'many.txt' }));
      expect([result.endLine, result.totalLines, result.truncated]).toEqual([2000, 2500, true]);
      expect(String(result.content)).toEndWith(
        '\n[cut: showing lines 1-2000 of 2500; to read on, call read_file with startLine 2001 (and maxLines up to 5000)]',
      );
    });

    test('a line over 2000 characters is cut with a marker', async () => {
      const result = expectOk(await chat().call('read_file', { path: 'long-line.txt' }));
      expect(result.truncated).toBe(true);
      expect(String(result.content)).toStartWith(
        `     1\t${'x'.repeat(2000)} [cut: line of 2500 characters, first 2000 shown; read it whole with read_file view "hex" or "base64"]\n     2\tshort`,
      );
      expect(String(result.content)).toEndWith(
        '\n[cut: lines longer than 2000 characters were cut; read such a file with view "hex" or "base64", or search it with grep]',
      );
    });

    test('the 256 KiB window cap stops at a whole line and names the next startLine', async () => {
      const result = expectOk(await chat().call('read_file', { path: 'wide.txt' }));
      const endLine = Number(result.endLine);
      expect(endLine).toBe(Math.floor((256 * 1024) / 1508));
      expect(result.truncated).toBe(true);
      expect(String(result.content)).toContain(
        `(the 256 KiB window cap was reached); to read on, call read_file with startLine ${endLine + 1} (and maxLines up to 5000)]`,
      );
    });

    test('startLine past the end states the line count', async () => {
      const error = expectFailure(await chat().call('read_file', { path: 'three.txt', startLine: 5 }));
      expect(error).toEqual({
        classification: 'validation_failed',
        message: 'startLine 5 is past the end of "three.txt", which has 3 lines.',
      });
    });

    test('a file with a NUL byte in its first 8 KiB is refused, naming the byte views', async () => {
      const error = expectFailure(await chat().call('read_file', { path: 'image.png' }));
      expect(error.classification).toBe('execution_error');
      expect(error.message).toContain('view "hex" or view "base64"');
    });

    test('a 10 MiB + 1 byte file is refused by the text view', async () => {
      const error = expectFailure(await chat().call('read_file', { path: 'ten-mib-plus-one.txt' }));
      expect(error.message).toBe(
        'Cannot read "ten-mib-plus-one.txt": it is larger than the 10 MiB ceiling of the text view. Search it with grep instead.',
      );
    });

    test('a directory, a missing file and a symlink escape', async () => {
      expect(expectFailure(await chat().call('read_file', { path: 'dir' })).message).toContain(
        'it is a directory',
      );
      expect(expectFailure(await chat().call('read_file', { path: 'missing.txt' })).classification).toBe(
        'not_found',
      );
      expect(expectFailure(await chat().call('read_file', { path: 'escape.txt' })).classification).toBe(
        'permission_denied',
      );
    });
  });

  describe('byte views', () => {
    test.each([
      ['hex', Buffer.from(binary).toString('hex')],
      ['base64', Buffer.from(binary).toString('base64')],
    ])('%s returns the whole file with no line structure', async (view, content) => {
      const result = expectOk(await chat().call('read_file', { path: 'image.png', view }));
      expect(result).toEqual({
        content,
        path: 'image.png',
        size: binary.length,
        sha256: sha256Hex(binary),
        totalLines: 0,
        startLine: 1,
        endLine: 0,
        truncated: false,
        view,
      });
    });

    test.each([['hex'], ['base64']])('%s refuses a file past 256 KiB and accepts one at it', async (view) => {
      expect(
        expectFailure(await chat().call('read_file', { path: 'bytes-256k-plus-one.bin', view })).message,
      ).toContain('larger than the 256 KiB ceiling of the byte views');
      expectOk(await chat().call('read_file', { path: 'bytes-256k.bin', view }));
    });

    test.each([[{ startLine: 1 }], [{ maxLines: 10 }]])(
      '%j with a byte view is rejected, not dropped',
      async (extra) => {
        const error = expectFailure(
          await chat().call('read_file', { path: 'image.png', view: 'hex', ...extra }),
        );
        expect(error.classification).toBe('validation_failed');
      },
    );
  });

  describe('arguments', () => {
    test.each([
      [{ path: 42 }],
      [{ path: 'three.txt', startLine: '2' }],
      [{ path: 'three.txt', startLine: 0 }],
      [{ path: 'three.txt', maxLines: 5001 }],
      [{ path: 'three.txt', view: 'utf8' }],
      [{}],
    ])('%j is validation_failed', async (args) => {
      expect(expectFailure(await chat().call('read_file', args)).classification).toBe('validation_failed');
    });
  });
});

describe('the ceiling bounds the bytes the descriptor yields', () => {
  const temp = makeTempDirectory('mango-read-bounded-');
  const wd = temp.path;
  beforeAll(() => writeFileSync(join(wd, 'three.txt'), 'one\ntwo\nthree\n'));
  afterAll(() => temp.remove());

  test('a file that grows after stat is refused at the cap, not read past it', async () => {
    const path = join(wd, 'growing.txt');
    writeFileSync(path, 'a'.repeat(50));
    const handle = await open(path, 'r');
    try {
      const claimedSize = (await handle.stat()).size;
      appendFileSync(path, 'b'.repeat(100));
      expect(await readBounded(handle, 100, claimedSize)).toEqual({ ok: false, reason: 'over_ceiling' });
    } finally {
      await handle.close();
    }
  });

  test('a file that under-reports its size is read to its real end when under the cap', async () => {
    const handle = await open(join(wd, 'three.txt'), 'r');
    try {
      const read = await readBounded(handle, 1000, 0);
      expect(read.ok && new TextDecoder().decode(read.bytes)).toBe('one\ntwo\nthree\n');
    } finally {
      await handle.close();
    }
  });
});

describe('renderTextWindow and numberLine', () => {
  test('numberLine right-aligns to six columns', () => {
    expect(numberLine(1, 'a')).toBe('     1\ta');
    expect(numberLine(1234567, 'a')).toBe('1234567\ta');
  });
  test('a window starting mid-file', () => {
    expect(renderTextWindow('a\nb\nc\n', 3, 3, 10, true)).toEqual({
      content: '     3\tc',
      endLine: 3,
      truncated: false,
    });
  });
});
