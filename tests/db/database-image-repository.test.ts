import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseImageRepository } from '../../src/db/database-image-repository.ts';
import type { ImageRecord } from '../../src/images/image-repository.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

function record(id: string, userId: string, chatId: string | undefined, createdAt: number): ImageRecord {
  return {
    id,
    userId,
    chatId,
    model: 'gpt-image-1.5',
    prompt: `prompt ${id}`,
    mimeType: 'image/png',
    filePath: `/data/images/${userId}/${id}.png`,
    byteLength: 5_000_000_000, // past 32 bits: BIGINT on PostgreSQL
    createdAt,
  };
}

describe.each(BACKENDS)('DatabaseImageRepository on %s (migrated schema)', (backend) => {
  let handle: TestDatabase;
  let repository: DatabaseImageRepository;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    // Records reference users(id): two real rows with the ids the records use.
    for (const id of ['alice', 'bob']) {
      await handle.database.sql`INSERT INTO users (id, name, created_at)
        VALUES (${id}, ${id}, ${'2026-11-30T00:00:00.000Z'})`;
    }
    repository = new DatabaseImageRepository(handle.database);
  }, 30_000);
  afterAll(() => handle.dispose());

  test('saves and reads back a record exactly', async () => {
    const saved = record('img-1', 'alice', 'chat-1', 1_700_000_000_123);
    await repository.save(saved);
    expect(await repository.get('img-1')).toEqual(saved);
    expect(await repository.get('missing')).toBeUndefined();
  });

  test('a record without a chat keeps chatId undefined', async () => {
    const saved = record('img-nochat', 'alice', undefined, 1_700_000_000_000);
    await repository.save(saved);
    expect(await repository.get('img-nochat')).toEqual(saved);
  });

  test("lists one user's images of one chat, oldest first", async () => {
    await repository.save(record('img-3', 'alice', 'chat-1', 1_700_000_000_300));
    await repository.save(record('img-2', 'alice', 'chat-1', 1_700_000_000_200));
    await repository.save(record('img-bob', 'bob', 'chat-1', 1_700_000_000_250));
    await repository.save(record('img-other-chat', 'alice', 'chat-2', 1_700_000_000_250));
    const listed = await repository.listForChat('alice', 'chat-1');
    expect(listed.map((item) => item.id)).toEqual(['img-1', 'img-2', 'img-3']);
  });

  test('an image of an unknown user is refused by the foreign key', async () => {
    await expect(repository.save(record('img-ghost', 'ghost', 'chat-1', 1))).rejects.toThrow();
  });
});
