/**
 * Migration 8: the turn record. One `chat_turns` row per turn holds everything a turn produces beyond
 * the chat's messages: its lease (`holder`, `lease_expires_at`) and fencing token, its state, usage,
 * durations, progress, error and pending approvals (JSON text, null until written). `chat_turn_events`
 * holds the turn's client events in order, so any instance can replay a turn from a sequence number and
 * follow it while it runs.
 *
 * - `fencing_token` grows by one per turn of a chat and never repeats (`UNIQUE (chat_id, fencing_token)`;
 *   turn rows stay until the chat is deleted), so an instance paused past its lease can be told apart
 *   from the turn that replaced it. Every write of a turn checks its token and live lease in the same
 *   transaction.
 * - At most one running turn per chat, enforced by the partial unique index `chat_turns_one_running`
 *   (both SQLite and PostgreSQL support partial indexes): two instances can never both claim a chat.
 * - `message_seq_at_start` is the chat's last message `seq` when the turn began, so a client that
 *   re-attaches knows which stored messages predate the turn it replays.
 * - The lease table of migration 5 is dropped: the turn record replaces it (its rows were leases of
 *   running turns only, which this upgrade's restart ends anyway).
 * - Timestamps are ISO-8601 UTC text, which sorts like the instant it names.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE chat_turns (
    id TEXT PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    fencing_token INTEGER NOT NULL,
    holder TEXT NOT NULL,
    state TEXT NOT NULL,
    lease_expires_at TEXT,
    cancel_requested_at TEXT,
    started_at TEXT NOT NULL,
    last_write_at TEXT,
    ended_at TEXT,
    message_seq_at_start INTEGER NOT NULL,
    usage_json TEXT,
    durations_json TEXT,
    progress_json TEXT,
    error_json TEXT,
    pending_approvals_json TEXT NOT NULL,
    UNIQUE (chat_id, fencing_token)
  )`,
  `CREATE UNIQUE INDEX chat_turns_one_running ON chat_turns (chat_id) WHERE state = 'running'`,
  `CREATE TABLE chat_turn_events (
    turn_id TEXT NOT NULL REFERENCES chat_turns(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    event_json TEXT NOT NULL,
    PRIMARY KEY (turn_id, seq)
  )`,
  'DROP TABLE chat_turn_leases',
];

export const turnRecordsMigration: Migration = {
  version: 8,
  name: 'turn-records',
  sqlite: statements,
  postgres: statements,
};
