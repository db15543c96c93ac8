/**
 * Migration 3: chats and their messages, one message row per conversation item (docs/chats.md).
 *
 * - `chats.user_id` cascades from `users`; `messages.chat_id` cascades from `chats`. The repository
 *   still deletes a chat's messages explicitly, so correctness does not depend on SQLite's
 *   `foreign_keys` pragma.
 * - One `messages` row per `ConversationItem`: `content_json` holds the item as JSON text (not `jsonb`:
 *   the item is replayed byte for byte, including provider fields such as reasoning items and thought
 *   signatures), `role` is `user`, `assistant` or `tool` (`getMessageRole`), `seq` orders the history
 *   and is unique within a chat.
 * - `restricted` is INTEGER 0/1 on SQLite and BOOLEAN on PostgreSQL, like migration 1's flags;
 *   timestamps are ISO-8601 UTC text.
 */
import type { Migration } from './migration.ts';

function statements(booleanType: string): string[] {
  return [
    `CREATE TABLE chats (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      working_directory TEXT,
      restricted ${booleanType} NOT NULL,
      provider TEXT NOT NULL,
      model TEXT NOT NULL,
      system_prompt TEXT,
      created_at TEXT NOT NULL
    )`,
    'CREATE INDEX chats_user_created ON chats (user_id, created_at)',
    `CREATE TABLE messages (
      id TEXT PRIMARY KEY,
      chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      role TEXT NOT NULL,
      content_json TEXT NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (chat_id, seq)
    )`,
  ];
}

export const chatsMigration: Migration = {
  version: 3,
  name: 'chats',
  sqlite: statements('INTEGER'),
  postgres: statements('BOOLEAN'),
};
