/**
 * Migration 10: `tool_approvals`, one row per approval question a turn asked (a tool call waiting for
 * the user's yes). The question is a row, not state in the memory of the instance running the turn, so
 * any instance sharing the database can show it (`pendingApprovals` of the turn record) and take the
 * answer; the instance running the turn notices by polling the row (or at once when the answer arrived
 * on that instance).
 *
 * - `id` is chosen by the asking instance; `(chat_id, call_id)` finds the question a route names (a call
 *   id is the model's and may repeat across turns, so the newest turn's row is the one meant).
 * - `state` leaves `waiting` exactly once, by a conditional update (`waiting` → `approved`, `denied`,
 *   `timed_out`, `cancelled` or `interrupted`).
 * - Rows go with their turn and their chat (`ON DELETE CASCADE`).
 * - `chat_turns.pending_approvals_json` of migration 8, reserved for this before the table existed, is
 *   dropped: the waiting rows are the one record of what waits.
 * - Timestamps are ISO-8601 UTC text, which sorts like the instant it names.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE tool_approvals (
    id TEXT PRIMARY KEY,
    turn_id TEXT NOT NULL REFERENCES chat_turns(id) ON DELETE CASCADE,
    chat_id TEXT NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    call_id TEXT NOT NULL,
    tool_name TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    reason TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    state TEXT NOT NULL,
    decision_reason TEXT,
    resolved_at TEXT,
    remembered_json TEXT
  )`,
  'CREATE INDEX tool_approvals_by_call ON tool_approvals (chat_id, call_id)',
  'CREATE INDEX tool_approvals_by_turn ON tool_approvals (turn_id, state)',
  'ALTER TABLE chat_turns DROP COLUMN pending_approvals_json',
];

export const toolApprovalsMigration: Migration = {
  version: 10,
  name: 'tool-approvals',
  sqlite: statements,
  postgres: statements,
};
