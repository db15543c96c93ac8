import { describe, expect, test } from 'bun:test';
import {
  failureOfReply,
  InvalidReplyError,
  listingReply,
  locationReply,
  readFileReply,
  replacedFileReply,
  writeTargetReply,
} from '../../src/file-worker/file-worker-replies.ts';

const none = new Uint8Array(0);

describe("a worker's replies are judged as untrusted input", () => {
  test('a valid read, write target, replacement and listing come back as fresh objects of their shape', () => {
    expect(
      readFileReply(
        { kind: 'file', real: '/w/a.txt', mode: 0o644, mtimeMs: 5, extra: 'dropped' },
        new Uint8Array([1]),
        10,
      ),
    ).toEqual({ kind: 'file', real: '/w/a.txt', bytes: new Uint8Array([1]), mode: 0o644, mtimeMs: 5 });
    expect(readFileReply({ kind: 'directory', real: '/w' }, none, 10)).toEqual({
      kind: 'directory',
      real: '/w',
    });
    expect(writeTargetReply({ real: '/w/b', kind: 'missing' })).toEqual({ real: '/w/b', kind: 'missing' });
    expect(replacedFileReply({ real: '/w/b', size: 3, mtimeMs: 1 }, 3)).toEqual({
      real: '/w/b',
      size: 3,
      mtimeMs: 1,
    });
    expect(
      listingReply({
        real: '/w',
        entries: [
          { name: 'b', type: 'file' },
          { name: 'a', type: 'directory' },
        ],
        refused: 1,
      }),
    ).toEqual({
      real: '/w',
      entries: [
        { name: 'a', type: 'directory' },
        { name: 'b', type: 'file' },
      ],
      refused: 1,
    });
  });

  const refused: [string, () => unknown, string][] = [
    [
      'a relative path',
      () => writeTargetReply({ real: 'w/b', kind: 'file' }),
      'real is not an absolute, normalised path',
    ],
    [
      'a path with ..',
      () => writeTargetReply({ real: '/w/../etc', kind: 'file' }),
      'real is not an absolute, normalised path',
    ],
    [
      'a NUL in a path',
      () => writeTargetReply({ real: '/w/\0', kind: 'file' }),
      'real is not an absolute, normalised path',
    ],
    [
      'an unknown kind',
      () => writeTargetReply({ real: '/w', kind: 'symlink' }),
      'kind is neither missing nor file',
    ],
    [
      'more bytes than asked for',
      () => readFileReply({ kind: 'file', real: '/w/a', mode: 0, mtimeMs: 0 }, new Uint8Array(11), 10),
      'it sent 11 bytes, more than the 10 asked for',
    ],
    [
      'bytes with a directory',
      () => readFileReply({ kind: 'directory', real: '/w' }, new Uint8Array(1), 10),
      'a directory result carries bytes',
    ],
    [
      'a mode with more than permission bits',
      () => readFileReply({ kind: 'file', real: '/w/a', mode: 0o100644, mtimeMs: 0 }, none, 10),
      'mode has more than permission bits',
    ],
    [
      'a size other than what was sent',
      () => replacedFileReply({ real: '/w/b', size: 2, mtimeMs: 1 }, 3),
      'size is 2, but 3 bytes were sent',
    ],
    [
      'a name with a slash',
      () => listingReply({ real: '/w', entries: [{ name: '../x', type: 'file' }], refused: 0 }),
      'an entry name is not a name a directory can hold',
    ],
    [
      'a name twice',
      () =>
        listingReply({
          real: '/w',
          entries: [
            { name: 'a', type: 'file' },
            { name: 'a', type: 'file' },
          ],
          refused: 0,
        }),
      'an entry name comes twice',
    ],
    [
      'a negative count',
      () => listingReply({ real: '/w', entries: [], refused: -1 }),
      'refused is not a whole number of zero or more',
    ],
    ['not an object', () => listingReply([]), 'the result is not an object'],
    [
      'a location without its outcome',
      () => locationReply({ real: '/w', exists: true }),
      'outcome is neither located nor failed',
    ],
    [
      'a relative location',
      () => locationReply({ outcome: 'located', real: 'w/a', exists: true }),
      'real is not an absolute, normalised path',
    ],
    [
      'a location that may or may not exist',
      () => locationReply({ outcome: 'located', real: '/w/a', exists: 'yes' }),
      'exists is not true or false',
    ],
    [
      "a resolution failure of the server's own kind",
      () => locationReply({ outcome: 'failed', code: 'ENOMEM', message: 'x' }),
      'code is none of ELOOP, EACCES, EPERM, path_changed',
    ],
    [
      'a resolution failure without a message',
      () => locationReply({ outcome: 'failed', code: 'ELOOP', message: '' }),
      'a failure carries no message of at most 16 KiB',
    ],
  ];
  for (const [name, judge, message] of refused) {
    test(`refused: ${name}`, () => {
      expect(judge).toThrow(new InvalidReplyError(message));
    });
  }

  test('a location comes back as itself; a failed resolution as the error resolving here would throw', () => {
    expect(locationReply({ outcome: 'located', real: '/w/a', exists: false, extra: 1 })).toEqual({
      real: '/w/a',
      exists: false,
    });
    for (const code of ['ELOOP', 'EACCES', 'EPERM', 'path_changed']) {
      let thrown: unknown;
      try {
        locationReply({ outcome: 'failed', code, message: `failed with ${code}` });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(thrown).not.toBeInstanceOf(InvalidReplyError);
      const caught = thrown as { code?: unknown; message: string };
      expect({ code: caught.code, message: caught.message }).toEqual({
        code,
        message: `failed with ${code}`,
      });
    }
  });

  test('a failure carries only a classification of file work and a bounded message', () => {
    expect(failureOfReply({ classification: 'not_found', message: 'gone' })).toMatchObject({
      classification: 'not_found',
      message: 'gone',
    });
    expect(failureOfReply({ classification: 'denied', message: 'x' })).toBeUndefined();
    expect(failureOfReply({ classification: 'unknown_tool', message: 'x' })).toBeUndefined();
    expect(failureOfReply({ classification: 'not_found', message: '' })).toBeUndefined();
    expect(
      failureOfReply({ classification: 'not_found', message: 'x'.repeat(16 * 1024 + 1) }),
    ).toBeUndefined();
    expect(failureOfReply('not_found')).toBeUndefined();
  });
});
