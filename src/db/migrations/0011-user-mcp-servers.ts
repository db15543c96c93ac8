/**
 * Migration 11: `user_mcp_servers`, the Streamable HTTP MCP servers users add themselves, one row per
 * user and name. Header values are stored sealed (AES-256-GCM under the operator's key), their names in
 * the clear so the user can see which are set; deleting a user deletes their servers.
 */
import type { Migration } from './migration.ts';

const statements = [
  `CREATE TABLE user_mcp_servers (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    url TEXT NOT NULL,
    header_names_json TEXT NOT NULL,
    sealed_headers TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_id, name)
  )`,
];

export const userMcpServersMigration: Migration = {
  version: 11,
  name: 'user-mcp-servers',
  sqlite: statements,
  postgres: statements,
};
