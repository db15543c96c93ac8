/**
 * `SecretKeyProbeRepository` on the database: the probe in `secret_key_probes`, the sealed values in
 * `user_mcp_servers.sealed_headers`. Replacements are compare-and-set on the old sealed text.
 */
import type {
  SealedHeaderValue,
  SecretKeyProbeRepository,
} from '../mcp-client/secret-key-probe-repository.ts';
import type { Database } from './database.ts';

export class DatabaseSecretKeyProbeRepository implements SecretKeyProbeRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async readProbe(name: string): Promise<{ sealed: string; createdAt: string } | undefined> {
    const rows = await this.#database.sql<{ sealed: string; created_at: string }[]>`
      SELECT sealed, created_at FROM secret_key_probes WHERE name = ${name}`;
    const row = rows[0];
    return row === undefined ? undefined : { sealed: row.sealed, createdAt: row.created_at };
  }

  async insertProbeIfAbsent(name: string, sealed: string, now: string): Promise<void> {
    await this.#database.sql`
      INSERT INTO secret_key_probes (name, sealed, created_at, updated_at)
      VALUES (${name}, ${sealed}, ${now}, ${now})
      ON CONFLICT (name) DO NOTHING`;
  }

  async replaceProbe(name: string, expected: string, sealed: string, now: string): Promise<boolean> {
    const rows = await this.#database.sql`
      UPDATE secret_key_probes SET sealed = ${sealed}, updated_at = ${now}
      WHERE name = ${name} AND sealed = ${expected} RETURNING name`;
    return rows.length === 1;
  }

  async listSealedHeaders(): Promise<SealedHeaderValue[]> {
    const rows = await this.#database.sql<{ user_id: string; name: string; sealed_headers: string }[]>`
      SELECT user_id, name, sealed_headers FROM user_mcp_servers WHERE sealed_headers IS NOT NULL
      ORDER BY user_id, name`;
    return rows.map((row) => ({ userId: row.user_id, name: row.name, sealed: row.sealed_headers }));
  }

  async replaceSealedHeaders(value: SealedHeaderValue, sealed: string, now: string): Promise<boolean> {
    const rows = await this.#database.sql`
      UPDATE user_mcp_servers SET sealed_headers = ${sealed}, updated_at = ${now}
      WHERE user_id = ${value.userId} AND name = ${value.name} AND sealed_headers = ${value.sealed}
      RETURNING name`;
    return rows.length === 1;
  }
}
