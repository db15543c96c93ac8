/**
 * `WorkspaceRepository` on the database (`workspace_grants`, `users.allow_unrestricted`; migration 6;
 * `users.disk_quota_bytes`, migration 13),
 * so every server instance and CLI command sees the same grants: a revoke through `mango workspace
 * revoke` applies to a running server's next tool call.
 */
import {
  compareGrants,
  type WorkspaceGrant,
  type WorkspaceRepository,
} from '../workspaces/workspace-repository.ts';
import type { Database } from './database.ts';

interface GrantRow {
  user_id: string;
  path: string;
  read_only: boolean | number;
  created_at: string;
}

function toGrant(row: GrantRow): WorkspaceGrant {
  return {
    userId: row.user_id,
    path: row.path,
    readOnly: row.read_only === true || row.read_only === 1,
    createdAt: row.created_at,
  };
}

export class DatabaseWorkspaceRepository implements WorkspaceRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  #flag(value: boolean): boolean | number {
    return this.#database.dialect === 'sqlite' ? Number(value) : value;
  }

  async putGrant(grant: WorkspaceGrant): Promise<{ created: boolean }> {
    return this.#database.sql.begin(async (transaction) => {
      const updated = await transaction`UPDATE workspace_grants SET read_only = ${this.#flag(grant.readOnly)}
        WHERE user_id = ${grant.userId} AND path = ${grant.path} RETURNING path`;
      if (updated.length > 0) return { created: false };
      await transaction`INSERT INTO workspace_grants (user_id, path, read_only, created_at)
        VALUES (${grant.userId}, ${grant.path}, ${this.#flag(grant.readOnly)}, ${grant.createdAt})
        ON CONFLICT (user_id, path) DO UPDATE SET read_only = excluded.read_only`;
      return { created: true };
    });
  }

  async deleteGrant(userId: string, path: string): Promise<boolean> {
    const rows = await this.#database.sql`DELETE FROM workspace_grants
      WHERE user_id = ${userId} AND path = ${path} RETURNING path`;
    return rows.length > 0;
  }

  async listGrants(userId?: string): Promise<WorkspaceGrant[]> {
    const rows: GrantRow[] =
      userId === undefined
        ? await this.#database.sql`SELECT user_id, path, read_only, created_at FROM workspace_grants`
        : await this.#database.sql`SELECT user_id, path, read_only, created_at FROM workspace_grants
            WHERE user_id = ${userId}`;
    return rows.map(toGrant).sort(compareGrants);
  }

  async isUnrestrictedAllowed(userId: string): Promise<boolean> {
    const rows: { allow_unrestricted: boolean | number }[] = await this.#database
      .sql`SELECT allow_unrestricted FROM users WHERE id = ${userId}`;
    const value = rows[0]?.allow_unrestricted;
    return value === true || value === 1;
  }

  async setUnrestrictedAllowed(userId: string, allowed: boolean): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE users SET allow_unrestricted = ${this.#flag(allowed)}
      WHERE id = ${userId} RETURNING id`;
    return rows.length > 0;
  }

  async diskQuota(userId: string): Promise<number | undefined> {
    const rows: { disk_quota_bytes: number | string | bigint | null }[] = await this.#database
      .sql`SELECT disk_quota_bytes FROM users WHERE id = ${userId}`;
    const value = rows[0]?.disk_quota_bytes;
    // PostgreSQL returns BIGINT as text; a quota is at most 16 TiB, exact as a number.
    return value === null || value === undefined ? undefined : Number(value);
  }

  async setDiskQuota(userId: string, bytes: number | undefined): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE users SET disk_quota_bytes = ${bytes ?? null}
      WHERE id = ${userId} RETURNING id`;
    return rows.length > 0;
  }
}
