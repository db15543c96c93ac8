/**
 * The `images` table (issue 8), written for the server's migration runner (branch `server`:
 * `src/db/migrations/migration.ts`). It is a separate module because the migration's number is only
 * known at merge time: the lead adds `NNNN-images.ts` as
 * `export const imagesMigration: Migration = { version: N, name: 'images', ...IMAGES_MIGRATION_STATEMENTS }`
 * and appends it to `MIGRATIONS`.
 *
 * - Conventions of migration 1: ISO-8601 UTC text timestamps, the same columns on both dialects.
 * - `user_id` references `users(id)` and cascades: a deleted user's records go (their files under
 *   `images/<user>/` are removed by whoever deletes the user). `chat_id` has no foreign key, like
 *   `file_observations`, because the chats table belongs to another migration; a chat's images are
 *   listed through the (user_id, chat_id, created_at) index.
 */
export const IMAGES_MIGRATION_STATEMENTS = {
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
} as const satisfies { sqlite: readonly string[]; postgres: readonly string[] };
