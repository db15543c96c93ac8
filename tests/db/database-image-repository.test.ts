import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DatabaseImageRepository, type ImageDatabase } from '../../src/db/database-image-repository.ts';
import { IMAGES_MIGRATION_STATEMENTS } from '../../src/db/migrations/images.ts';
import type { ImageRecord } from '../../src/images/image-repository.ts';

const POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

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

/** The same behaviour on both backends. */
function describeRepository(
  name: string,
  open: () => Promise<{ database: ImageDatabase; close: () => Promise<void> }>,
) {
  describe(`DatabaseImageRepository on ${name}`, () => {
    let repository: DatabaseImageRepository;
    let database: ImageDatabase;
    let close: () => Promise<void>;

    beforeAll(async () => {
      ({ database, close } = await open());
      // Stand-in for migration 1's users table, which the images table references.
      await database.sql.unsafe('CREATE TABLE users (id TEXT PRIMARY KEY)');
      for (const statement of IMAGES_MIGRATION_STATEMENTS[database.dialect])
        await database.sql.unsafe(statement);
      await database.sql`INSERT INTO users (id) VALUES ('alice'), ('bob')`;
      repository = new DatabaseImageRepository(database);
    });
    afterAll(async () => {
      await close();
    });

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
}

describeRepository('SQLite', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'mango-image-db-'));
  const sql = new SQL({
    adapter: 'sqlite',
    filename: join(directory, 'mango.db'),
    create: true,
    readwrite: true,
  });
  await sql.unsafe('PRAGMA foreign_keys = ON');
  return {
    database: { sql, dialect: 'sqlite' },
    close: async () => {
      await sql.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
});

describeRepository('PostgreSQL', async () => {
  const schema = `mango_images_${process.pid}_${Date.now()}`;
  const sql = new SQL(POSTGRES_URL, { max: 1 });
  await sql.unsafe(`CREATE SCHEMA ${schema}`);
  await sql.unsafe(`SET search_path TO ${schema}`);
  return {
    database: { sql, dialect: 'postgres' },
    close: async () => {
      await sql.unsafe(`DROP SCHEMA ${schema} CASCADE`);
      await sql.close();
    },
  };
});
