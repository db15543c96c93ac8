/**
 * Migration 16: what instances sharing one database check about each other at start.
 * - `secret_key_probes`: one value sealed under `MANGO_SECRET_KEY` (`name` says what it probes), so an
 *   instance whose key cannot open it refuses to start instead of sealing headers nobody else opens.
 * - `server_instances`: the instances running now, each with its heartbeat and the names of the marker
 *   files it wrote into its data and workspaces directories; a newcomer must find every live instance's
 *   markers in its own directories, which proves the directories are shared.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE secret_key_probes (
    name TEXT NOT NULL PRIMARY KEY,
    sealed TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`,
  `CREATE TABLE server_instances (
    id TEXT NOT NULL PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    marker TEXT NOT NULL
  )`,
];

export const instancesAndSecretProbeMigration: Migration = {
  version: 15,
  name: 'instances-and-secret-probe',
  sqlite: statements,
  postgres: statements,
};
