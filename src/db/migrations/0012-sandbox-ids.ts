/**
 * Migration 12: `sandbox_ids`, the ids of the sandbox range given out so far (a user's uid and gid, a
 * granted directory's group). The id is the primary key and (kind, owner) is unique, so concurrent
 * instances can neither share an id between owners nor give one owner two. No foreign key to `users`:
 * deleting a user must not free the id, since files and processes of that id may outlive them.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE sandbox_ids (
    id INTEGER NOT NULL PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('user', 'grant')),
    owner TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (kind, owner)
  )`,
];

export const sandboxIdsMigration: Migration = {
  version: 12,
  name: 'sandbox-ids',
  sqlite: statements,
  postgres: statements,
};
