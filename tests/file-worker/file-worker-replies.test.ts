import { describe, expect, test } from 'bun:test';
import {
  downloadReply,
  failureOfReply,
  folderListingReply,
  InvalidReplyError,
  inspectedFileReply,
  listingReply,
  locationReply,
  rangeReply,
  readFileReply,
  replacedFileReply,
  uploadReply,
  writeTargetReply,
} from '../../src/file-worker/file-worker-replies.ts';
import { encodeGlobMatches } from '../../src/file-worker/glob-paths-payload.ts';
import { globReply } from '../../src/file-worker/glob-reply.ts';
import { grepReply } from '../../src/file-worker/grep-reply.ts';
import { ProtectedPathRefusedError } from '../../src/tools/access/protected-path-refused-error.ts';
import { GlobMatchList } from '../../src/tools/fs/glob-match-list.ts';

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

  test('a refusal of the protected set carries exactly its reason and locations, the real one inside', () => {
    const refusal = {
      reason: 'protected_path',
      path: 'data/db',
      real: '/srv/data/db',
      protectedPath: '/srv/data',
    };
    const failure = failureOfReply({ classification: 'permission_denied', message: 'denied', refusal });
    expect(failure).toBeInstanceOf(ProtectedPathRefusedError);
    expect([failure?.classification, failure?.message]).toEqual(['permission_denied', 'denied']);
    expect((failure as ProtectedPathRefusedError).location).toEqual({
      path: 'data/db',
      real: '/srv/data/db',
      protectedPath: '/srv/data',
    });
    const wrong: [string, Record<string, unknown>][] = [
      ['another classification', { classification: 'not_found', message: 'x', refusal }],
      ['a field more', { classification: 'permission_denied', message: 'x', refusal, extra: 1 }],
      ['no object', { classification: 'permission_denied', message: 'x', refusal: 'protected_path' }],
      [
        'another reason',
        { classification: 'permission_denied', message: 'x', refusal: { ...refusal, reason: 'denied' } },
      ],
      [
        'a field less',
        {
          classification: 'permission_denied',
          message: 'x',
          refusal: { reason: 'protected_path', path: 'a', real: '/a' },
        },
      ],
      [
        'a location outside',
        { classification: 'permission_denied', message: 'x', refusal: { ...refusal, real: '/srv/other' } },
      ],
      [
        'a relative location',
        { classification: 'permission_denied', message: 'x', refusal: { ...refusal, real: 'srv/data/db' } },
      ],
      [
        'an unnormalised protected path',
        {
          classification: 'permission_denied',
          message: 'x',
          refusal: { ...refusal, protectedPath: '/srv/../srv/data' },
        },
      ],
      [
        'an empty path',
        { classification: 'permission_denied', message: 'x', refusal: { ...refusal, path: '' } },
      ],
      [
        'a path too long',
        {
          classification: 'permission_denied',
          message: 'x',
          refusal: { ...refusal, path: 'a'.repeat(4097) },
        },
      ],
    ];
    for (const [name, value] of wrong) expect([name, failureOfReply(value)]).toEqual([name, undefined]);
  });
});

describe("a worker's replies to the files routes' operations are judged as untrusted input", () => {
  test('a valid listing, download, range and upload come back as fresh objects of their shape', () => {
    expect(
      folderListingReply(
        {
          kind: 'directory',
          real: '/w',
          entries: [
            { name: 'src', type: 'directory', mtimeMs: 7 },
            { name: 'a.txt', type: 'file', size: 6, mtimeMs: 8, extra: 'dropped' },
            { name: 'gone', type: 'file' },
          ],
          total: 5,
          refused: 2,
        },
        none,
        3,
      ),
    ).toEqual({
      kind: 'directory',
      real: '/w',
      entries: [
        { name: 'src', type: 'directory', mtimeMs: 7 },
        { name: 'a.txt', type: 'file', size: 6, mtimeMs: 8 },
        { name: 'gone', type: 'file' },
      ],
      total: 5,
      refused: 2,
    });
    expect(folderListingReply({ kind: 'not_directory', real: '/w' }, none, 3)).toEqual({
      kind: 'not_directory',
    });
    expect(folderListingReply({ kind: 'refused' }, none, 3)).toEqual({ kind: 'refused' });
    const signature = new Uint8Array([0x89, 0x50]);
    expect(
      downloadReply({ kind: 'file', real: '/w/a.png', size: 2, identity: '2049:131' }, signature),
    ).toEqual({ kind: 'file', real: '/w/a.png', size: 2, signature, identity: '2049:131' });
    expect(downloadReply({ kind: 'special' }, none)).toEqual({ kind: 'special' });
    expect(rangeReply({ read: 2 }, signature, 4)).toBe(signature);
    expect(uploadReply({ kind: 'written', real: '/w/n.md', size: 5, replaced: true }, none, 5)).toEqual({
      kind: 'written',
      real: '/w/n.md',
      size: 5,
      replaced: true,
    });
    expect(uploadReply({ kind: 'missing', at: 'directory' }, none, 5)).toEqual({
      kind: 'missing',
      at: 'directory',
    });
    expect(uploadReply({ kind: 'not_regular_file', found: 'symlink' }, none, 5)).toEqual({
      kind: 'not_regular_file',
      found: 'symlink',
    });
  });

  const listing = (entries: unknown[], total = entries.length, limit = 10) =>
    folderListingReply({ kind: 'directory', real: '/w', entries, total, refused: 0 }, none, limit);
  const refused: [string, () => unknown, string][] = [
    [
      'a listing of more entries than asked for',
      () =>
        listing(
          [
            { name: 'a', type: 'file' },
            { name: 'b', type: 'file' },
          ],
          2,
          1,
        ),
      'entries is not a list of at most 1',
    ],
    [
      'a listing that leaves out entries below the limit',
      () => listing([{ name: 'a', type: 'file' }], 3),
      'it sent 1 entries of 3, with at most 10 asked for',
    ],
    [
      'a listing with a file before a folder',
      () =>
        listing([
          { name: 'a', type: 'file' },
          { name: 'b', type: 'directory' },
        ]),
      'the entries are not in folder-listing order, each name once',
    ],
    [
      'a listing with a name twice',
      () =>
        listing([
          { name: 'a', type: 'file' },
          { name: 'a', type: 'file' },
        ]),
      'the entries are not in folder-listing order, each name once',
    ],
    [
      'a listing entry with a slash',
      () => listing([{ name: 'x/y', type: 'file' }]),
      'an entry name is not a name a directory can hold',
    ],
    [
      'a size on a folder',
      () => listing([{ name: 'a', type: 'directory', size: 4 }]),
      'an entry that is not a file has a size',
    ],
    [
      'a time no date holds',
      () => listing([{ name: 'a', type: 'file', mtimeMs: 1e300 }]),
      'an entry mtimeMs is not a date',
    ],
    [
      'a listing carrying bytes',
      () => folderListingReply({ kind: 'refused' }, new Uint8Array(1), 10),
      'the listing result carries bytes',
    ],
    [
      'a listing of an unknown kind',
      () => folderListingReply({ kind: 'file', real: '/w' }, none, 10),
      'kind is none of directory, not_directory, refused',
    ],
    [
      'a listing of a relative location',
      () => folderListingReply({ kind: 'directory', real: 'w', entries: [], total: 0, refused: 0 }, none, 10),
      'real is not an absolute, normalised path',
    ],
    [
      'a download with more first bytes than the file has',
      () => downloadReply({ kind: 'file', real: '/w/a', size: 1, identity: '1:2' }, new Uint8Array(2)),
      'it sent 2 first bytes of a file of 1, more than 1',
    ],
    [
      'a download with more than 16 first bytes',
      () => downloadReply({ kind: 'file', real: '/w/a', size: 99, identity: '1:2' }, new Uint8Array(17)),
      'it sent 17 first bytes of a file of 99, more than 16',
    ],
    [
      'a download without a device:inode identity',
      () => downloadReply({ kind: 'file', real: '/w/a', size: 0, identity: '../x' }, none),
      'identity is not a device:inode pair',
    ],
    [
      'a download of a directory carrying bytes',
      () => downloadReply({ kind: 'directory' }, new Uint8Array(1)),
      'the directory result carries bytes',
    ],
    [
      'a download of an unknown kind',
      () => downloadReply({ kind: 'symlink' }, none),
      'kind is none of file, directory, special, refused',
    ],
    [
      'a range of more bytes than asked for',
      () => rangeReply({ read: 5 }, new Uint8Array(5), 4),
      'it sent 5 bytes, more than the 4 asked for',
    ],
    [
      'a range whose count is not what it sent',
      () => rangeReply({ read: 3 }, new Uint8Array(2), 4),
      'read is 3, but it sent 2 bytes',
    ],
    [
      'an upload of another size than sent',
      () => uploadReply({ kind: 'written', real: '/w/a', size: 4, replaced: false }, none, 5),
      'size is 4, but 5 bytes were sent',
    ],
    [
      'an upload that does not say whether it replaced',
      () => uploadReply({ kind: 'written', real: '/w/a', size: 5, replaced: 'yes' }, none, 5),
      'replaced is not true or false',
    ],
    [
      'an upload missing somewhere else',
      () => uploadReply({ kind: 'missing', at: '/etc' }, none, 5),
      'at is neither directory nor file',
    ],
    [
      'an upload refused for an unknown thing found',
      () => uploadReply({ kind: 'not_regular_file', found: 'fifo' }, none, 5),
      'found is none of symlink, directory, special',
    ],
    [
      'an upload of an unknown kind',
      () => uploadReply({ kind: 'done' }, none, 5),
      'kind is none of written, not_directory, not_regular_file, exists, appeared, missing, refused',
    ],
    [
      'an upload carrying bytes',
      () => uploadReply({ kind: 'exists' }, new Uint8Array(1), 5),
      'the upload result carries bytes',
    ],
  ];
  for (const [name, judge, message] of refused) {
    test(`refused: ${name}`, () => {
      expect(judge).toThrow(new InvalidReplyError(message));
    });
  }
});

describe("a worker's replies about an attachment are judged as untrusted input", () => {
  test('each kind comes back fresh, with its real location', () => {
    expect(inspectedFileReply({ kind: 'file', real: '/w/a.md', extra: 1 })).toEqual({
      kind: 'file',
      real: '/w/a.md',
    });
    expect(inspectedFileReply({ kind: 'directory', real: '/w' })).toEqual({ kind: 'directory', real: '/w' });
    expect(inspectedFileReply({ kind: 'special', real: '/w/fifo' })).toEqual({
      kind: 'special',
      real: '/w/fifo',
    });
    expect(inspectedFileReply({ kind: 'missing', real: '/etc/passwd' })).toEqual({ kind: 'missing' });
  });
  const refused: [string, () => unknown, string][] = [
    ['a result that is no object', () => inspectedFileReply('file'), 'the result is not an object'],
    [
      'an unknown kind',
      () => inspectedFileReply({ kind: 'symlink', real: '/w/l' }),
      'kind is none of missing, file, directory, special',
    ],
    [
      'a relative location',
      () => inspectedFileReply({ kind: 'file', real: 'w/a' }),
      'real is not an absolute, normalised path',
    ],
    [
      'a location with ..',
      () => inspectedFileReply({ kind: 'file', real: '/w/../etc/passwd' }),
      'real is not an absolute, normalised path',
    ],
    [
      'a file without a location',
      () => inspectedFileReply({ kind: 'file' }),
      'real is not an absolute, normalised path',
    ],
  ];
  for (const [name, judge, message] of refused) {
    test(`refused: ${name}`, () => {
      expect(judge).toThrow(new InvalidReplyError(message));
    });
  }
});

describe("a worker's replies to glob are judged as untrusted input", () => {
  const encodeGlobPaths = (start: string, list: string[]) =>
    encodeGlobMatches(GlobMatchList.fromPaths(start, list));
  const paths = (...list: string[]) => encodeGlobPaths('/w/src', list);
  /** A payload of raw tokens, each ended by a NUL (malformed ones included). */
  const tokens = (...list: string[]) => new TextEncoder().encode(list.map((token) => `${token}\0`).join(''));
  const fields = (overrides: Record<string, unknown> = {}) => ({
    real: '/w',
    start: '/w/src',
    count: 2,
    truncated: false,
    refused: 1,
    ...overrides,
  });

  test('valid matches come back as a fresh object of its shape, in the order sent', () => {
    expect(globReply(fields(), paths('/w/src/b.ts', '/w/src/a/c.ts'), 5)).toEqual({
      real: '/w',
      start: '/w/src',
      paths: ['/w/src/b.ts', '/w/src/a/c.ts'],
      truncated: false,
      refused: 1,
    });
    expect(globReply(fields({ count: 0, refused: 0 }), none, 5)).toEqual({
      real: '/w',
      start: '/w/src',
      paths: [],
      truncated: false,
      refused: 0,
    });
    // Truncated with exactly the cap sent; from `/`, paths one level below it and deeper.
    expect(
      globReply(
        fields({ start: '/', count: 3, truncated: true }),
        encodeGlobPaths('/', ['/a', '/b', '/b/c']),
        3,
      ),
    ).toMatchObject({ paths: ['/a', '/b', '/b/c'], truncated: true });
  });

  test('names that only start with dots are names', () => {
    expect(
      globReply(fields({ count: 3 }), paths('/w/src/..c', '/w/src/.b', '/w/src/d./...'), 3).paths,
    ).toEqual(['/w/src/..c', '/w/src/.b', '/w/src/d./...']);
  });

  test('matches cross grouped by directory, each directory once, as NUL-ended UTF-8 of any script', () => {
    const payload = encodeGlobPaths('/w', ['/w/a', '/w/ä.txt', '/w/d/e/f', '/w/d/e/g', '/w/d/h']);
    expect(new TextDecoder().decode(payload)).toBe('/\0a\0ä.txt\0/d/e\0f\0g\0/d\0h\0');
    expect([...encodeGlobPaths('/w', ['/w/ä'])]).toEqual([47, 0, 0xc3, 0xa4, 0]);
    expect(globReply(fields({ start: '/w', count: 5 }), payload, 5).paths).toEqual([
      '/w/a',
      '/w/ä.txt',
      '/w/d/e/f',
      '/w/d/e/g',
      '/w/d/h',
    ]);
  });

  test('a list is not made of a match that is not below its start', () => {
    expect(() => encodeGlobPaths('/w/src', ['/w/srcx/a'])).toThrow('is not below');
    expect(() => encodeGlobPaths('/w/src', ['/w/src'])).toThrow('is not below');
    expect(() => encodeGlobPaths('/w/src', ['/w/src/a/'])).toThrow('is not below');
  });

  const refused: [string, () => unknown, string][] = [
    ['not an object', () => globReply([], none, 5), 'the result is not an object'],
    [
      'a field more',
      () => globReply(fields({ extra: 1 }), paths('/w/src/a', '/w/src/b'), 5),
      "the result's fields are not exactly count, real, refused, start, truncated",
    ],
    [
      'a field less',
      () => {
        const { refused: _refused, ...rest } = fields();
        return globReply(rest, paths('/w/src/a', '/w/src/b'), 5);
      },
      "the result's fields are not exactly count, real, refused, start, truncated",
    ],
    [
      'a relative cwd',
      () => globReply(fields({ real: 'w' }), paths('/w/src/a', '/w/src/b'), 5),
      'real is not an absolute, normalised path',
    ],
    [
      'a start with ..',
      () => globReply(fields({ start: '/w/../etc' }), paths('/w/src/a', '/w/src/b'), 5),
      'start is not an absolute, normalised path',
    ],
    [
      'more paths than asked for',
      () => globReply(fields({ count: 3 }), paths('/w/src/a', '/w/src/b', '/w/src/c'), 2),
      'count is 3, more than the 2 asked for',
    ],
    [
      'truncated with fewer than the cap',
      () => globReply(fields({ truncated: true }), paths('/w/src/a', '/w/src/b'), 3),
      'it says truncated with 2 paths of the 3 asked for',
    ],
    [
      'truncated that is not a boolean',
      () => globReply(fields({ truncated: 'no' }), paths('/w/src/a', '/w/src/b'), 3),
      'truncated is not true or false',
    ],
    [
      'a count that is not the paths sent',
      () => globReply(fields({ count: 2 }), paths('/w/src/a'), 3),
      'count is 2, but it sent 1 paths',
    ],
    [
      'a count that is not a whole number',
      () => globReply(fields({ count: 1.5 }), paths('/w/src/a'), 3),
      'count is not a whole number of zero or more',
    ],
    [
      'a payload whose last token has no NUL',
      () => globReply(fields({ count: 1 }), new TextEncoder().encode('/\0a'), 3),
      'the matches are not UTF-8 text of NUL-ended tokens',
    ],
    [
      'a payload that is not UTF-8',
      () => globReply(fields({ count: 1 }), new Uint8Array([47, 0, 0xff, 0]), 3),
      'the matches are not UTF-8 text of NUL-ended tokens',
    ],
    [
      'a byte-order mark before the first directory',
      () => globReply(fields({ count: 1 }), new Uint8Array([0xef, 0xbb, 0xbf, ...paths('/w/src/a')]), 3),
      'a match comes before any directory',
    ],
    [
      'a name before any directory',
      () => globReply(fields({ count: 1 }), tokens('a'), 3),
      'a match comes before any directory',
    ],
    ['an empty name', () => globReply(fields(), tokens('/', 'a', ''), 3), 'a match is not one name'],
    ['a name that is .', () => globReply(fields(), tokens('/', 'a', '.'), 3), 'a match is not one name'],
    ['a name that is ..', () => globReply(fields(), tokens('/', 'a', '..'), 3), 'a match is not one name'],
    [
      'a name of two components',
      () => globReply(fields(), tokens('/', 'a', 'b/c'), 3),
      'a match is not one name',
    ],
    [
      'a directory with ..',
      () => globReply(fields({ count: 1 }), tokens('/../../etc', 'passwd'), 3),
      'a directory is not a normalised path below start',
    ],
    [
      'a directory with an empty segment',
      () => globReply(fields({ count: 1 }), tokens('//b', 'c'), 3),
      'a directory is not a normalised path below start',
    ],
    [
      'a directory with a . segment',
      () => globReply(fields({ count: 1 }), tokens('/./b', 'c'), 3),
      'a directory is not a normalised path below start',
    ],
    [
      'a directory ending in ..',
      () => globReply(fields({ count: 1 }), tokens('/b/..', 'c'), 3),
      'a directory is not a normalised path below start',
    ],
    [
      'a directory with a trailing slash',
      () => globReply(fields({ count: 1 }), tokens('/b/', 'c'), 3),
      'a directory is not a normalised path below start',
    ],
    [
      'a directory without matches',
      () => globReply(fields({ count: 1 }), tokens('/', '/b', 'c'), 3),
      'a directory holds no matches',
    ],
    [
      'a last directory without matches',
      () => globReply(fields({ count: 1 }), tokens('/', 'a', '/b'), 3),
      'a directory holds no matches',
    ],
    [
      'a directory twice',
      () => globReply(fields({ count: 2 }), tokens('/b', 'c', '/', 'a', '/b', 'd'), 3),
      'a directory comes twice',
    ],
    [
      'a path longer than a path may be',
      () => globReply(fields(), paths('/w/src/a', `/w/src/${'b'.repeat(4096)}`), 3),
      'a path is longer than a path may be',
    ],
    [
      'a path twice',
      () => globReply(fields(), tokens('/', 'a', 'a'), 3),
      'the matches of a directory are not in ascending name order, each once',
    ],
    [
      'names out of order',
      () => globReply(fields(), tokens('/', 'b', 'a'), 3),
      'the matches of a directory are not in ascending name order, each once',
    ],
    [
      'a negative refused',
      () => globReply(fields({ refused: -1 }), paths('/w/src/a', '/w/src/b'), 3),
      'refused is not a whole number of zero or more',
    ],
  ];
  for (const [name, judge, message] of refused) {
    test(`refused: ${name}`, () => {
      expect(judge).toThrow(new InvalidReplyError(message));
    });
  }
});

describe("a worker's grep reply is judged as untrusted input", () => {
  const limits = { maxResults: 3, maxMatchesPerFile: 2 };
  const hit = (file: string, lines: number[] = [1]) => ({
    file,
    status: 'searched',
    matches: lines.map((line) => ({ line, text: `line ${line}` })),
    more: false,
    unsearchedLines: [],
  });
  const outcome = (fields: Record<string, unknown> = {}) => ({
    real: '/w',
    rootIsFile: false,
    files: [hit('/w/a.ts', [1, 2]), hit('/w/d/b.ts')],
    tooLarge: { files: ['/w/big.bin'], count: 1 },
    filesScanned: 9,
    hitMaxResults: true,
    refused: 2,
    ...fields,
  });

  test('a valid directory search and a file search come back as fresh objects of their shape', () => {
    expect(grepReply({ ...outcome(), extra: 'dropped' }, none, limits)).toEqual({
      real: '/w',
      rootIsFile: false,
      files: [
        {
          file: '/w/a.ts',
          status: 'searched',
          matches: [
            { line: 1, text: 'line 1' },
            { line: 2, text: 'line 2' },
          ],
          more: false,
          unsearchedLines: [],
        },
        {
          file: '/w/d/b.ts',
          status: 'searched',
          matches: [{ line: 1, text: 'line 1' }],
          more: false,
          unsearchedLines: [],
        },
      ],
      tooLarge: { files: ['/w/big.bin'], count: 1 },
      filesScanned: 9,
      hitMaxResults: true,
      refused: 2,
    });
    const binary = {
      file: '/w/x.bin',
      status: 'binary' as const,
      matches: [],
      more: false,
      unsearchedLines: [],
    };
    expect(
      grepReply(
        outcome({
          real: '/w/x.bin',
          rootIsFile: true,
          files: [binary],
          tooLarge: { files: [], count: 0 },
          filesScanned: 0,
          hitMaxResults: false,
          refused: 0,
        }),
        none,
        limits,
      ),
    ).toEqual({
      real: '/w/x.bin',
      rootIsFile: true,
      files: [binary],
      tooLarge: { files: [], count: 0 },
      filesScanned: 0,
      hitMaxResults: false,
      refused: 0,
    });
  });

  const refused: [string, Record<string, unknown>, string][] = [
    [
      'a file outside the searched directory',
      { files: [hit('/etc/passwd')] },
      'a file lies outside the searched directory',
    ],
    [
      'the searched directory as a file',
      { files: [hit('/w')] },
      'a file lies outside the searched directory',
    ],
    ['a file path with a NUL', { files: [hit('/w/a\0b')] }, 'a file is not an absolute, normalised path'],
    [
      'a file path with ..',
      { files: [hit('/w/../etc/passwd')] },
      'a file is not an absolute, normalised path',
    ],
    [
      'more matches than maxResults',
      { files: [hit('/w/a.ts', [1, 2]), hit('/w/b.ts', [1, 2])] },
      'it names 4 matches, more than the 3 asked for',
    ],
    [
      'more matches in a file than maxMatchesPerFile',
      { files: [hit('/w/a.ts', [1, 2, 3])] },
      'matches is not a list of at most 2',
    ],
    ['a file named twice', { files: [hit('/w/a.ts'), hit('/w/a.ts')] }, 'a file is named twice'],
    ['a line number of zero', { files: [hit('/w/a.ts', [0])] }, 'a match line is not a line number'],
    [
      'a text of two lines',
      { files: [{ ...hit('/w/a.ts'), matches: [{ line: 1, text: 'a\nb' }] }] },
      'a match text is not one line of at most 2114 characters',
    ],
    [
      'a text over the line cut',
      { files: [{ ...hit('/w/a.ts'), matches: [{ line: 1, text: 'x'.repeat(2115) }] }] },
      'a match text is not one line of at most 2114 characters',
    ],
    [
      'a status of its own',
      { files: [{ ...hit('/w/a.ts'), status: 'skipped' }] },
      'a file status is none of searched, binary, unreadable',
    ],
    [
      'a file of a directory search with nothing to report',
      { files: [hit('/w/a.ts', [])] },
      'a file of a directory search has nothing to report',
    ],
    [
      'a binary file with matches',
      {
        rootIsFile: true,
        real: '/w/a.ts',
        files: [{ ...hit('/w/a.ts'), status: 'binary' }],
        tooLarge: { files: [], count: 0 },
        refused: 0,
      },
      'a binary file has matches',
    ],
    ['a negative count', { refused: -1 }, 'refused is not a whole number of zero or more'],
    ['a fractional count', { filesScanned: 1.5 }, 'filesScanned is not a whole number of zero or more'],
    [
      'fewer scanned than named',
      { filesScanned: 1 },
      'filesScanned is fewer than the files searched it names',
    ],
    [
      'a too-large count below its names',
      { tooLarge: { files: ['/w/big.bin'], count: 0 } },
      'tooLarge.count does not fit the files it names',
    ],
    [
      'a too-large count above a short list',
      { tooLarge: { files: ['/w/big.bin'], count: 7 } },
      'tooLarge.count does not fit the files it names',
    ],
    [
      'too many unsearched lines',
      {
        files: [{ ...hit('/w/a.ts'), unsearchedLines: Array.from({ length: 12 }, (_, index) => index + 1) }],
      },
      'unsearchedLines is not a list of at most 11',
    ],
    [
      'a file search naming another file',
      {
        rootIsFile: true,
        real: '/w/a.ts',
        files: [hit('/w/b.ts')],
        tooLarge: { files: [], count: 0 },
        refused: 0,
      },
      'a file lies outside the searched file',
    ],
    ['hitMaxResults not a boolean', { hitMaxResults: 'yes' }, 'hitMaxResults is not true or false'],
  ];
  for (const [name, fields, message] of refused) {
    test(`refused: ${name}`, () => {
      expect(() => grepReply(outcome(fields), none, limits)).toThrow(new InvalidReplyError(message));
    });
  }
  test('refused: a grep reply carrying bytes', () => {
    expect(() => grepReply(outcome(), new Uint8Array(1), limits)).toThrow(
      new InvalidReplyError('the grep result carries bytes'),
    );
  });
});
