/**
 * Where the MCP servers users add themselves are stored: per user, by name, the URL, the names of the
 * headers (shown to the user) and the headers themselves sealed (header-cipher.ts). This module holds
 * the contract and an in-memory implementation; `src/db/` provides the SQLite/PostgreSQL one.
 */

export interface StoredUserMcpServer {
  userId: string;
  name: string;
  url: string;
  /** The header names, in the order given; their values live only in `sealedHeaders`. */
  headerNames: string[];
  /** `HeaderCipher.seal` of the headers, or null when there are none. */
  sealedHeaders: string | null;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

export interface UserMcpServerRepository {
  /** The user's servers, oldest first. */
  list(userId: string): Promise<StoredUserMcpServer[]>;
  get(userId: string, name: string): Promise<StoredUserMcpServer | undefined>;
  /** Adds one; false when the user already has a server of that name. */
  insert(server: StoredUserMcpServer): Promise<boolean>;
  /** Replaces one; false when there is none of that name. */
  update(server: StoredUserMcpServer): Promise<boolean>;
  /** Removes one; false when there was none. */
  delete(userId: string, name: string): Promise<boolean>;
}

export class InMemoryUserMcpServerRepository implements UserMcpServerRepository {
  readonly #rows = new Map<string, StoredUserMcpServer>();

  #key(userId: string, name: string): string {
    return JSON.stringify([userId, name]);
  }

  async list(userId: string): Promise<StoredUserMcpServer[]> {
    return [...this.#rows.values()]
      .filter((row) => row.userId === userId)
      .sort((left, right) => left.createdAt.localeCompare(right.createdAt))
      .map((row) => structuredClone(row));
  }

  async get(userId: string, name: string): Promise<StoredUserMcpServer | undefined> {
    const row = this.#rows.get(this.#key(userId, name));
    return row ? structuredClone(row) : undefined;
  }

  async insert(server: StoredUserMcpServer): Promise<boolean> {
    const key = this.#key(server.userId, server.name);
    if (this.#rows.has(key)) return false;
    this.#rows.set(key, structuredClone(server));
    return true;
  }

  async update(server: StoredUserMcpServer): Promise<boolean> {
    const key = this.#key(server.userId, server.name);
    if (!this.#rows.has(key)) return false;
    this.#rows.set(key, structuredClone(server));
    return true;
  }

  async delete(userId: string, name: string): Promise<boolean> {
    return this.#rows.delete(this.#key(userId, name));
  }
}
