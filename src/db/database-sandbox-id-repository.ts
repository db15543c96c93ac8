/**
 * `SandboxIdRepository` on the database (`sandbox_ids`, migration 12). An id is allocated by one
 * statement that takes the highest id given in the range plus one and inserts it unless the id or the
 * owner is taken (`ON CONFLICT DO NOTHING`); a statement that inserted nothing lost a race to another
 * instance, which either gave this owner an id (found on the next read) or took the id (the next try
 * takes the one after). Ids are never reused, so "highest plus one" never lands on a freed id.
 */
import { lastOwnerId, type SandboxIdRange } from '../sandbox/sandbox-id-range.ts';
import {
  type SandboxIdKind,
  SandboxIdRangeFullError,
  type SandboxIdRepository,
  type SandboxIdRow,
} from '../sandbox/sandbox-id-repository.ts';
import type { Database } from './database.ts';

/** More instances than this racing for one id at once is not a deployment this serves. */
const MAX_ATTEMPTS = 32;

interface Row {
  id: number | string;
  kind: SandboxIdKind;
  owner: string;
  created_at: string;
}

export class DatabaseSandboxIdRepository implements SandboxIdRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async find(kind: SandboxIdKind, owner: string): Promise<number | undefined> {
    const rows: Row[] = await this.#database.sql`SELECT id, kind, owner, created_at FROM sandbox_ids
      WHERE kind = ${kind} AND owner = ${owner}`;
    const row = rows[0];
    return row === undefined ? undefined : Number(row.id);
  }

  async allocate(kind: SandboxIdKind, owner: string, range: SandboxIdRange, now: string): Promise<number> {
    const last = lastOwnerId(range);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const existing = await this.find(kind, owner);
      if (existing !== undefined) return existing;
      const inserted: Row[] = await this.#database.sql`INSERT INTO sandbox_ids (id, kind, owner, created_at)
        SELECT COALESCE(MAX(id), ${range.base}) + 1, ${kind}, ${owner}, ${now} FROM sandbox_ids
        WHERE id > ${range.base} AND id <= ${last}
        HAVING COALESCE(MAX(id), ${range.base}) + 1 <= ${last}
        ON CONFLICT DO NOTHING RETURNING id, kind, owner, created_at`;
      const row = inserted[0];
      if (row !== undefined) return Number(row.id);
      const highest: { highest: number | string | null }[] = await this.#database
        .sql`SELECT MAX(id) AS highest FROM sandbox_ids WHERE id > ${range.base} AND id <= ${last}`;
      if (Number(highest[0]?.highest ?? range.base) >= last && (await this.find(kind, owner)) === undefined) {
        throw new SandboxIdRangeFullError(range);
      }
    }
    throw new Error(`Could not allocate a sandbox id for ${kind} ${owner} after ${MAX_ATTEMPTS} attempts.`);
  }

  async list(): Promise<SandboxIdRow[]> {
    const rows: Row[] = await this.#database
      .sql`SELECT id, kind, owner, created_at FROM sandbox_ids ORDER BY id`;
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind,
      owner: row.owner,
      createdAt: row.created_at,
    }));
  }
}
