/**
 * Where workspace grants, the per-user "unrestricted chats allowed" flag and each user's own disk
 * quota live. This module holds
 * the contract and an in-memory implementation; `src/db/` provides the SQLite/PostgreSQL one, which
 * every server instance and CLI command shares, so a grant or revoke is seen everywhere at the next
 * call.
 */

/** A directory an operator granted a user. */
export interface WorkspaceGrant {
  userId: string;
  /** Real absolute path, as resolved when granted. */
  path: string;
  readOnly: boolean;
  /** ISO 8601. */
  createdAt: string;
}

export interface WorkspaceRepository {
  /** Adds the grant, or changes the read-only flag of an existing one; `created` tells which. */
  putGrant(grant: WorkspaceGrant): Promise<{ created: boolean }>;
  /** Removes the user's grant of exactly `path`; false when there was none. */
  deleteGrant(userId: string, path: string): Promise<boolean>;
  /** The user's grants (every user's when `userId` is undefined), by user then path. */
  listGrants(userId?: string): Promise<WorkspaceGrant[]>;
  isUnrestrictedAllowed(userId: string): Promise<boolean>;
  /** False when no such user. */
  setUnrestrictedAllowed(userId: string, allowed: boolean): Promise<boolean>;
  /** The user's own disk quota in bytes; undefined = the default (`MANGO_USER_DISK_BYTES`). */
  diskQuota(userId: string): Promise<number | undefined>;
  /** Sets (or, with undefined, clears) the user's own disk quota; false when no such user. */
  setDiskQuota(userId: string, bytes: number | undefined): Promise<boolean>;
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The order of `listGrants`: by user id, then path, by code unit (the same on every backend). */
export function compareGrants(left: WorkspaceGrant, right: WorkspaceGrant): number {
  return compareText(left.userId, right.userId) || compareText(left.path, right.path);
}

export class InMemoryWorkspaceRepository implements WorkspaceRepository {
  readonly #grants = new Map<string, WorkspaceGrant>();
  readonly #unrestricted = new Set<string>();
  readonly #diskQuotas = new Map<string, number>();

  async putGrant(grant: WorkspaceGrant): Promise<{ created: boolean }> {
    const key = `${grant.userId}\u0000${grant.path}`;
    const existing = this.#grants.get(key);
    this.#grants.set(key, existing ? { ...existing, readOnly: grant.readOnly } : { ...grant });
    return { created: existing === undefined };
  }

  async deleteGrant(userId: string, path: string): Promise<boolean> {
    return this.#grants.delete(`${userId}\u0000${path}`);
  }

  async listGrants(userId?: string): Promise<WorkspaceGrant[]> {
    return [...this.#grants.values()]
      .filter((grant) => userId === undefined || grant.userId === userId)
      .sort(compareGrants)
      .map((grant) => ({ ...grant }));
  }

  async isUnrestrictedAllowed(userId: string): Promise<boolean> {
    return this.#unrestricted.has(userId);
  }

  async setUnrestrictedAllowed(userId: string, allowed: boolean): Promise<boolean> {
    if (allowed) this.#unrestricted.add(userId);
    else this.#unrestricted.delete(userId);
    return true;
  }

  async diskQuota(userId: string): Promise<number | undefined> {
    return this.#diskQuotas.get(userId);
  }

  async setDiskQuota(userId: string, bytes: number | undefined): Promise<boolean> {
    if (bytes === undefined) this.#diskQuotas.delete(userId);
    else this.#diskQuotas.set(userId, bytes);
    return true;
  }
}
