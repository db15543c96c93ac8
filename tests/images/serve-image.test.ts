import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectImageFormat, writeImageFile } from '../../src/images/image-files.ts';
import { type ImageRecord, InMemoryImageRepository } from '../../src/images/image-repository.ts';
import { serveImage } from '../../src/images/serve-image.ts';
import { JPEG_BYTES, PNG_BYTES } from '../helpers/replay-image-server.ts';

let dataDirectory: string;
const repository = new InMemoryImageRepository();

async function storeImage(id: string, userId: string, bytes: Uint8Array): Promise<ImageRecord> {
  const format = detectImageFormat(bytes);
  if (!format) throw new Error('not an image');
  const filePath = await writeImageFile(dataDirectory, userId, id, bytes, format);
  const record: ImageRecord = {
    id,
    userId,
    chatId: 'chat-1',
    model: 'gpt-image-1.5',
    prompt: 'p',
    mimeType: format.mimeType,
    filePath,
    byteLength: bytes.byteLength,
    createdAt: 1,
  };
  await repository.save(record);
  return record;
}

beforeAll(async () => {
  dataDirectory = await mkdtemp(join(tmpdir(), 'mango-serve-image-'));
  await storeImage('alice-png', 'alice', PNG_BYTES);
  await storeImage('alice-jpeg', 'alice', JPEG_BYTES);
  await storeImage('bob-png', 'bob', PNG_BYTES);
});
afterAll(async () => {
  await rm(dataDirectory, { recursive: true, force: true });
});

describe('serveImage', () => {
  test.each([
    ['alice', 'alice-png', 'image/png', PNG_BYTES],
    ['alice', 'alice-jpeg', 'image/jpeg', JPEG_BYTES],
    ['bob', 'bob-png', 'image/png', PNG_BYTES],
  ])('the owner %p gets %p as %p', async (userId, imageId, contentType, bytes) => {
    const response = await serveImage(repository, userId, imageId);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(bytes));
  });

  test.each([
    ['bob', 'alice-png'], // someone else's image: the same 404 as a missing one
    ['alice', 'bob-png'],
    ['alice', 'no-such-image'],
    ['alice', '../alice/alice-png'],
    ['', 'alice-png'],
  ])('user %p asking for %p gets 404', async (userId, imageId) => {
    const response = await serveImage(repository, userId, imageId);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Image not found.', code: 'not_found' });
  });

  test('a record whose file is gone is a 404, not a 500', async () => {
    const record = await storeImage('vanishing', 'alice', PNG_BYTES);
    await rm(record.filePath);
    expect((await serveImage(repository, 'alice', 'vanishing')).status).toBe(404);
  });

  test('works as a one-line route over real HTTP', async () => {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) =>
        serveImage(
          repository,
          request.headers.get('x-user') ?? '',
          new URL(request.url).pathname.slice('/api/images/'.length),
        ),
    });
    try {
      const owner = await fetch(`http://127.0.0.1:${server.port}/api/images/alice-png`, {
        headers: { 'x-user': 'alice' },
      });
      expect(owner.status).toBe(200);
      expect(owner.headers.get('content-type')).toBe('image/png');
      expect(Number(owner.headers.get('content-length'))).toBe(PNG_BYTES.length);
      expect(new Uint8Array(await owner.arrayBuffer())).toEqual(new Uint8Array(PNG_BYTES));
      const stranger = await fetch(`http://127.0.0.1:${server.port}/api/images/alice-png`, {
        headers: { 'x-user': 'bob' },
      });
      expect(stranger.status).toBe(404);
      await stranger.body?.cancel();
    } finally {
      await server.stop(true);
    }
  });
});
