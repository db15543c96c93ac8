/**
 * Migration 9: `user_preferences`, one row per user with the provider and model of the last chat they
 * created, so the new-chat form can offer the same again. Both columns are nullable (a user who chose
 * nothing yet has no row at all); deleting a user deletes the row.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE user_preferences (
    user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    chat_provider TEXT,
    chat_model TEXT,
    updated_at TEXT NOT NULL
  )`,
];

export const userPreferencesMigration: Migration = {
  version: 9,
  name: 'user-preferences',
  sqlite: statements,
  postgres: statements,
};
