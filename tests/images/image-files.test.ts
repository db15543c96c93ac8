import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  detectImageFormat,
  getUserImageDirectoryName,
  writeImageFile,
} from '../../src/images/image-files.ts';
import { JPEG_BYTES, PNG_BYTES } from '../helpers/replay-image-server.ts';

let dataDirectory: string;
beforeAll(async () => {
  dataDirectory = await mkdtemp(join(tmpdir(), 'mango-image-store-'));
});
afterAll(async () => {
  await rm(dataDirectory, { recursive: true, force: true });
});

const webp = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50, 0x56]);
const gif = new TextEncoder().encode('GIF89a....');

describe('detectImageFormat', () => {
  test.each([
    ['png', PNG_BYTES, { mimeType: 'image/png', extension: 'png' }],
    ['jpeg', JPEG_BYTES, { mimeType: 'image/jpeg', extension: 'jpg' }],
    ['webp', webp, { mimeType: 'image/webp', extension: 'webp' }],
    ['gif', gif, { mimeType: 'image/gif', extension: 'gif' }],
    ['html', new TextEncoder().encode('<html><script>'), undefined],
    ['empty', new Uint8Array(), undefined],
    [
      'RIFF that is not WebP',
      new Uint8Array([0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x41, 0x56, 0x45]),
      undefined,
    ],
  ])('%s', (_name, bytes, expected) => {
    expect(detectImageFormat(bytes)).toEqual(expected);
  });
});

describe('image files', () => {
  test.each([
    ['alice', 'alice'],
    ['user_42-x', 'user_42-x'],
    ['../../etc', expect.stringMatching(/^u-[0-9a-f]{32}$/)],
    ['a/b', expect.stringMatching(/^u-[0-9a-f]{32}$/)],
    ['', expect.stringMatching(/^u-[0-9a-f]{32}$/)],
  ])('user %p stores under images/%p', (userId, expected) => {
    expect(getUserImageDirectoryName(userId)).toEqual(expected);
  });

  test('writes images/<user>/<id>.<ext> and leaves no temporary file', async () => {
    const path = await writeImageFile(dataDirectory, 'alice', 'image-1', PNG_BYTES, {
      mimeType: 'image/png',
      extension: 'png',
    });
    expect(path).toBe(join(dataDirectory, 'images', 'alice', 'image-1.png'));
    expect(await readdir(join(dataDirectory, 'images', 'alice'))).toEqual(['image-1.png']);
  });

  test('refuses an id that could leave the directory', async () => {
    await expect(
      writeImageFile(dataDirectory, 'alice', '../escape', PNG_BYTES, {
        mimeType: 'image/png',
        extension: 'png',
      }),
    ).rejects.toThrow('Invalid image id');
  });
});

describe('image files are the server’s own', () => {
  const png = { mimeType: 'image/png', extension: 'png' };
  const modeOf = (path: string) => (statSync(path).mode & 0o7777).toString(8);

  test('under umask 0: the data directory, images/ and the user’s directory 0700, the file 0600', async () => {
    const data = join(dataDirectory, 'fresh-data');
    const previous = process.umask(0);
    let path: string;
    try {
      path = await writeImageFile(data, 'alice', 'image-private', PNG_BYTES, png);
    } finally {
      process.umask(previous);
    }
    expect([data, join(data, 'images'), join(data, 'images', 'alice'), path].map(modeOf)).toEqual([
      '700',
      '700',
      '700',
      '600',
    ]);
    expect(new Uint8Array(readFileSync(path))).toEqual(PNG_BYTES);
  });

  test('directories an older version left 0755 are narrowed at the next write', async () => {
    const data = join(dataDirectory, 'older-data');
    mkdirSync(join(data, 'images', 'bob'), { recursive: true, mode: 0o755 });
    for (const directory of [data, join(data, 'images'), join(data, 'images', 'bob')])
      chmodSync(directory, 0o755);
    const path = await writeImageFile(data, 'bob', 'image-2', PNG_BYTES, png);
    expect([data, join(data, 'images'), join(data, 'images', 'bob'), path].map(modeOf)).toEqual([
      '700',
      '700',
      '700',
      '600',
    ]);
  });

  test('a link where the user’s directory should be is refused; nothing is written through it', async () => {
    const data = join(dataDirectory, 'linked-data');
    const elsewhere = join(dataDirectory, 'elsewhere');
    mkdirSync(join(data, 'images'), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(data, 'images', 'carol'));
    await expect(writeImageFile(data, 'carol', 'image-3', PNG_BYTES, png)).rejects.toMatchObject({
      code: 'ELOOP',
    });
    expect(await readdir(elsewhere)).toEqual([]);
    expect(existsSync(join(data, 'images', 'carol', 'image-3.png'))).toBe(false);
  });
});
