/**
 * `GET /api/images/:id` in process over both backends: the owner gets the bytes with the stored content
 * type; another user, an unknown id and a malformed id all get the same 404; no token is a 401.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { detectImageFormat, writeImageFile } from '../../src/images/image-files.ts';
import { JPEG_BYTES, PNG_BYTES } from '../helpers/replay-image-server.ts';
import { createTestApp, FIXED_NOW, type TestApp } from '../helpers/test-app.ts';
import { BACKENDS } from '../helpers/test-database.ts';

describe.each(BACKENDS)('GET /api/images/:id on %s', (backend) => {
  let api: TestApp;
  let alice: { id: string; token: string };
  let bob: { id: string; token: string };

  /** Stores an image of `userId` the way generate_image does: file under the data dir, then a record. */
  async function storeImage(id: string, userId: string, bytes: Uint8Array): Promise<void> {
    const format = detectImageFormat(bytes)!;
    const filePath = await writeImageFile(api.handle.config.dataDirectory, userId, id, bytes, format);
    await api.deps.images.save({
      id,
      userId,
      chatId: undefined,
      model: 'gpt-image-1.5',
      prompt: 'a fox',
      mimeType: format.mimeType,
      filePath,
      byteLength: bytes.byteLength,
      createdAt: FIXED_NOW,
    });
  }

  async function get(path: string, token?: string): Promise<Response> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    return api.app.handle(new Request(`http://localhost${path}`, { headers }));
  }

  beforeAll(async () => {
    api = await createTestApp(backend);
    const created = await Promise.all(['alice', 'bob'].map((name) => api.deps.users.create(name)));
    alice = { id: created[0]!.user.id, token: created[0]!.token };
    bob = { id: created[1]!.user.id, token: created[1]!.token };
    await storeImage('img-png', alice.id, PNG_BYTES);
    await storeImage('img-jpeg', alice.id, JPEG_BYTES);
  });
  afterAll(() => api.dispose());

  test.each([
    ['img-png', 'image/png', PNG_BYTES],
    ['img-jpeg', 'image/jpeg', JPEG_BYTES],
  ] as const)('the owner gets %s as %s, byte for byte', async (id, contentType, bytes) => {
    const response = await get(`/api/images/${id}`, alice.token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(new Uint8Array(bytes));
  });

  test('another user, an unknown id and a malformed id get the same 404', async () => {
    const answers = await Promise.all(
      [
        ['/api/images/img-png', bob.token],
        ['/api/images/no-such-image', alice.token],
        ['/api/images/..%2F..%2Fetc%2Fpasswd', alice.token],
      ].map(async ([path, token]) => {
        const response = await get(path!, token);
        return { status: response.status, body: await response.text() };
      }),
    );
    expect(answers[0]).toEqual({
      status: 404,
      body: JSON.stringify({ error: 'Image not found.', code: 'not_found' }),
    });
    expect(answers[1]).toEqual(answers[0]!);
    expect(answers[2]).toEqual(answers[0]!);
  });

  test('without a token: 401, nothing about the image', async () => {
    const response = await get('/api/images/img-png');
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthorized' });
  });

  test('a record survives a restart (database repository, not memory)', async () => {
    await api.restart();
    expect((await get('/api/images/img-png', alice.token)).status).toBe(200);
  });
});
