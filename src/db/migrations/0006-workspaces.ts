/**
 * Migration 6: workspaces belong to users.
 *
 * - `workspace_grants`: the directories an operator granted a user (real path, read-only flag),
 *   unique per user and path; deleting a user deletes their grants.
 * - `users.allow_unrestricted`: whether the user may have chats that reach all of their workspaces
 *   instead of only the chat's working directory. False for everyone at first.
 * - Chats: `confined` replaces `restricted`. Every chat becomes confined to its working directory
 *   unless its owner is allowed unrestricted chats (no one is yet, so all are). A chat with no
 *   directory keeps `working_directory` NULL, which now means "the owner's personal workspace": it
 *   moves there, and follows it if `MANGO_WORKSPACES_DIR` changes. Directories existing chats are bound
 *   to are not granted here (a migration cannot check them against the protected set of this
 *   server): `mango workspace grant-existing` does that, refusing protected ones.
 */
import type { Migration } from './migration.ts';

function statements(booleanType: string, falseValue: string, trueValue: string): string[] {
  return [
    `CREATE TABLE workspace_grants (
      user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      path TEXT NOT NULL,
      read_only ${booleanType} NOT NULL,
      created_at TEXT NOT NULL,
      PRIMARY KEY (user_id, path)
    )`,
    `ALTER TABLE users ADD COLUMN allow_unrestricted ${booleanType} NOT NULL DEFAULT ${falseValue}`,
    `ALTER TABLE chats ADD COLUMN confined ${booleanType} NOT NULL DEFAULT ${trueValue}`,
    `UPDATE chats SET confined = CASE
        WHEN restricted = ${falseValue} AND EXISTS (
          SELECT 1 FROM users WHERE users.id = chats.user_id AND users.allow_unrestricted = ${trueValue})
        THEN ${falseValue} ELSE ${trueValue} END`,
    'ALTER TABLE chats DROP COLUMN restricted',
  ];
}

export const workspacesMigration: Migration = {
  version: 6,
  name: 'workspaces',
  sqlite: statements('INTEGER', '0', '1'),
  postgres: statements('BOOLEAN', 'FALSE', 'TRUE'),
};
