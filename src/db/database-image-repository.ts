/**
 * `ImageRepository` on the database (`images`, see migrations/0002-images.ts), so image records survive a
 * restart and every API instance can serve any user's images.
 *
 * It needs only `sql` and `dialect` of the server's `Database` (branch `server`, src/db/database.ts);
 * the structural type below lets a `Database` be passed as is.
 */
import type { SQL } from 'bun';
import type { ImageRecord, ImageRepository } from '../images/image-repository.ts';

export interface ImageDatabase {
  readonly sql: SQL;
  readonly dialect: 'sqlite' | 'postgres';
}

interface ImageRow {
  id: string;
  user_id: string;
  chat_id: string | null;
  model: string;
  prompt: string;
  mime_type: string;
  file_path: string;
  byte_length: number | string | bigint;
  created_at: string;
}

function toRecord(row: ImageRow): ImageRecord {
  return {
    id: row.id,
    userId: row.user_id,
    chatId: row.chat_id ?? undefined,
    model: row.model,
    prompt: row.prompt,
    mimeType: row.mime_type,
    filePath: row.file_path,
    byteLength: Number(row.byte_length),
    createdAt: Date.parse(row.created_at),
  };
}

export class DatabaseImageRepository implements ImageRepository {
  readonly #database: ImageDatabase;

  constructor(database: ImageDatabase) {
    this.#database = database;
  }

  async save(record: ImageRecord): Promise<void> {
    const createdAt = new Date(record.createdAt).toISOString();
    await this.#database.sql`INSERT INTO images
        (id, user_id, chat_id, model, prompt, mime_type, file_path, byte_length, created_at)
      VALUES (${record.id}, ${record.userId}, ${record.chatId ?? null}, ${record.model}, ${record.prompt},
        ${record.mimeType}, ${record.filePath}, ${record.byteLength}, ${createdAt})`;
  }

  async get(imageId: string): Promise<ImageRecord | undefined> {
    const rows: ImageRow[] = await this.#database.sql`SELECT id, user_id, chat_id, model, prompt,
      mime_type, file_path, byte_length, created_at FROM images WHERE id = ${imageId}`;
    const row = rows[0];
    return row ? toRecord(row) : undefined;
  }

  async listForChat(userId: string, chatId: string): Promise<ImageRecord[]> {
    const rows: ImageRow[] = await this.#database.sql`SELECT id, user_id, chat_id, model, prompt,
      mime_type, file_path, byte_length, created_at FROM images
      WHERE user_id = ${userId} AND chat_id = ${chatId} ORDER BY created_at, id`;
    return rows.map(toRecord);
  }
}
