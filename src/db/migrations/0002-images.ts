/**
 * Migration 2: the `images` table: one record per generated image, its owner and chat, and
 * where its file is under the data directory (`src/images/image-files.ts`).
 *
 * - Conventions of migration 1: ISO-8601 UTC text timestamps, the same columns on both dialects.
 * - `user_id` references `users(id)` and cascades: a deleted user's records go (their files under
 *   `images/<user>/` are removed by whoever deletes the user). `chat_id` has no foreign key, like
 *   `file_observations`, because the chats table belongs to another migration; a chat's images are
 *   listed through the (user_id, chat_id, created_at) index.
 */
import type { Migration } from './migration.ts';

export const imagesMigration: Migration = {
  version: 2,
  name: 'images',
  sqlite: [
    `CREATE TABLE images (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      chat_id TEXT,
      model TEXT NOT NULL,
      prompt TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      file_path TEXT NOT NULL,
      byte_length INTEGER NOT NULL,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX images_user_chat ON images (user_id, chat_id, created_at)',
  ],
  postgres: [
    `CREATE TABLE images (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      chat_id TEXT,
      model TEXT NOT NULL,
      prompt TEXT NOT NULL,
      mime_type TEXT NOT NULL,
      file_path TEXT NOT NULL,
      byte_length BIGINT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX images_user_chat ON images (user_id, chat_id, created_at)',
  ],
};
