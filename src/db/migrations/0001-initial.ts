/**
 * Migration 1: users, their tool settings, and the freshness ledger.
 *
 * - Timestamps are ISO-8601 UTC text in both dialects (sortable, identical on both backends).
 * - `user_tool_settings.parameters_json` is text, not `jsonb`: a row is parsed and validated by the
 *   settings resolver on read, so a corrupted value falls back to defaults instead of failing the query.
 * - `file_observations` is keyed by chat id and real path. It has no foreign key to `chats`, which a
 *   later migration owns; deleting a chat deletes its observations (`deleteChatObservations`).
 */
import type { Migration } from './migration.ts';

export const initialMigration: Migration = {
  version: 1,
  name: 'initial',
  sqlite: [
    `CREATE TABLE users (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      token_hash TEXT UNIQUE,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    )`,
    `CREATE TABLE user_tool_settings (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      tool_name TEXT NOT NULL,
      enabled INTEGER,
      parameters_json TEXT,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (user_id, tool_name)
    )`,
    `CREATE TABLE file_observations (
      chat_id TEXT NOT NULL,
      path TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size INTEGER NOT NULL,
      mtime_ms REAL NOT NULL,
      covered_through INTEGER NOT NULL,
      complete INTEGER NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (chat_id, path)
    )`,
  ],
  postgres: [
    `CREATE TABLE users (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL UNIQUE,
      token_hash TEXT UNIQUE,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    )`,
    `CREATE TABLE user_tool_settings (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      tool_name TEXT NOT NULL,
      enabled BOOLEAN,
      parameters_json TEXT,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (user_id, tool_name)
    )`,
    `CREATE TABLE file_observations (
      chat_id TEXT NOT NULL,
      path TEXT NOT NULL,
      sha256 TEXT NOT NULL,
      size BIGINT NOT NULL,
      mtime_ms DOUBLE PRECISION NOT NULL,
      covered_through INTEGER NOT NULL,
      complete BOOLEAN NOT NULL,
      updated_at TEXT NOT NULL,
      PRIMARY KEY (chat_id, path)
    )`,
  ],
};
