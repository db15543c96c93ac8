/**
 * Migration 5: turn leases (one turn at a time per chat), so the rule holds across server
 * instances sharing one database, not only inside one process.
 *
 * A row says "instance `owner` runs a turn of `chat_id` until `expires_at`" (ISO-8601 UTC text, which
 * sorts like the instant it names). The running instance renews it; a crashed one stops renewing and
 * its lease expires, so a `kill -9` never locks a chat for good. `cancel_requested_at` is set by an
 * instance asked to cancel a turn it does not run; the owner polls it and aborts. The repository deletes a chat's lease
 * with the chat (the cascade is a second line, as SQLite's `foreign_keys` pragma may be off).
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE chat_turn_leases (
    chat_id TEXT PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
    owner TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    cancel_requested_at TEXT
  )`,
];

export const chatTurnLeasesMigration: Migration = {
  version: 5,
  name: 'chat-turn-leases',
  sqlite: statements,
  postgres: statements,
};
