/**
 * `UserRepository` on the database (`users`). Revoking a user clears its token hash (and stamps
 * `revoked_at`): the user and its settings remain, but no token authenticates as it any more. Issuing a
 * new token replaces the hash, so the previous token stops working at once.
 */
import { randomUUID } from 'node:crypto';
import { MangoError } from '../errors/mango-error.ts';
import { generateApiToken, hashApiToken, tokenHashesEqual } from '../users/api-token.ts';
import type { User, UserRepository } from '../users/user-repository.ts';
import type { Database } from './database.ts';

/** A user name is taken (the CLI prints this message). */
export class UserNameTakenError extends MangoError {
  override name = 'UserNameTakenError';
  constructor(message: string, options?: ErrorOptions) {
    super('user_name_taken', message, options);
  }
}

/** A listed user, with whether its token still works. */
export interface UserListing extends User {
  revoked: boolean;
}

interface UserRow {
  id: string;
  name: string;
  token_hash: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** 1–64 visible characters without whitespace; what `mango user add` accepts. */
export const USER_NAME_PATTERN = /^[\p{L}\p{N}_.@-]{1,64}$/u;

function toUser(row: UserRow): User {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

export function isUniqueViolation(error: unknown): boolean {
  const text = `${(error as { code?: unknown }).code ?? ''} ${(error as Error).message ?? ''}`;
  return /23505|UNIQUE|unique/.test(text);
}

export class DatabaseUserRepository implements UserRepository {
  readonly #database: Database;
  readonly #now: () => number;

  constructor(database: Database, now: () => number = Date.now) {
    this.#database = database;
    this.#now = now;
  }

  async create(name: string): Promise<{ user: User; token: string }> {
    if (!USER_NAME_PATTERN.test(name)) {
      throw new Error('A user name is 1–64 letters, digits, "_", ".", "@" or "-".');
    }
    const token = generateApiToken();
    const user: User = { id: randomUUID(), name, createdAt: new Date(this.#now()).toISOString() };
    try {
      await this.#database.sql`INSERT INTO users (id, name, token_hash, created_at)
        VALUES (${user.id}, ${user.name}, ${hashApiToken(token)}, ${user.createdAt})`;
    } catch (error) {
      if (isUniqueViolation(error)) throw new UserNameTakenError(`A user named "${name}" already exists.`);
      throw error;
    }
    return { user, token };
  }

  async findByToken(token: string): Promise<User | undefined> {
    const hash = hashApiToken(token);
    const rows: UserRow[] = await this.#database.sql`SELECT id, name, token_hash, created_at, revoked_at
      FROM users WHERE token_hash = ${hash}`;
    const row = rows[0];
    if (!row || row.token_hash === null || !tokenHashesEqual(row.token_hash, hash)) return undefined;
    return toUser(row);
  }

  async findByName(name: string): Promise<User | undefined> {
    const rows: UserRow[] = await this.#database.sql`SELECT id, name, token_hash, created_at, revoked_at
      FROM users WHERE name = ${name}`;
    return rows[0] ? toUser(rows[0]) : undefined;
  }

  async list(): Promise<User[]> {
    return (await this.listWithStatus()).map(({ id, name, createdAt }) => ({ id, name, createdAt }));
  }

  /** Every user, oldest first, with whether it was revoked. */
  async listWithStatus(): Promise<UserListing[]> {
    const rows: UserRow[] = await this.#database.sql`SELECT id, name, token_hash, created_at, revoked_at
      FROM users ORDER BY created_at, name`;
    return rows.map((row) => ({ ...toUser(row), revoked: row.token_hash === null }));
  }

  async revoke(name: string): Promise<boolean> {
    const revokedAt = new Date(this.#now()).toISOString();
    const rows = await this.#database.sql`UPDATE users SET token_hash = NULL, revoked_at = ${revokedAt}
      WHERE name = ${name} RETURNING id`;
    return rows.length > 0;
  }

  /**
   * Gives the user a new token and returns its only copy; the old one stops authenticating with this
   * statement (a revoked user becomes active again). Undefined when no such user.
   */
  async issueToken(name: string): Promise<string | undefined> {
    const token = generateApiToken();
    const rows = await this.#database.sql`UPDATE users SET token_hash = ${hashApiToken(token)},
      revoked_at = NULL WHERE name = ${name} RETURNING id`;
    return rows.length > 0 ? token : undefined;
  }

  async count(): Promise<number> {
    const rows: { count: number | string }[] = await this.#database.sql`SELECT COUNT(*) AS count FROM users`;
    return Number(rows[0]?.count ?? 0);
  }
}
