/**
 * Users and their API tokens. Tokens are random (≥ 128 bits), shown once, and stored only as hashes;
 * this module holds the contract, `src/db/` the SQLite/PostgreSQL implementation.
 */
export interface User {
  id: string;
  name: string;
  createdAt: string;
}

export interface UserRepository {
  /** Creates a user and returns the only copy of its token. Fails if the name is taken. */
  create(name: string): Promise<{ user: User; token: string }>;
  /** The user a bearer token belongs to (constant-time comparison of hashes), or undefined. */
  findByToken(token: string): Promise<User | undefined>;
  findByName(name: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Deletes the user's token(s) so they no longer authenticate; returns false when no such user. */
  revoke(name: string): Promise<boolean>;
  count(): Promise<number>;
}
