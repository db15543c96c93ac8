/**
 * The live instances of a database (`server_instances`): each running server's row, its heartbeat and
 * the name of the marker it wrote into its data and workspaces directories (`shared-directories.ts`).
 * A row whose heartbeat is older than the staleness bound belongs to an instance that died without
 * stopping; the next start removes it.
 */
import type { Database } from './database.ts';

export interface InstanceRecord {
  id: string;
  host: string;
  pid: number;
  startedAt: string;
  heartbeatAt: string;
  marker: string;
}

interface InstanceRow {
  id: string;
  host: string;
  pid: number | string;
  started_at: string;
  heartbeat_at: string;
  marker: string;
}

export class DatabaseInstanceRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async register(record: InstanceRecord): Promise<void> {
    await this.#database.sql`
      INSERT INTO server_instances (id, host, pid, started_at, heartbeat_at, marker)
      VALUES (${record.id}, ${record.host}, ${record.pid}, ${record.startedAt}, ${record.heartbeatAt}, ${record.marker})`;
  }

  /** Renews the heartbeat; false when the row is gone (another start judged this instance dead). */
  async heartbeat(id: string, now: string): Promise<boolean> {
    const rows = await this.#database.sql`
      UPDATE server_instances SET heartbeat_at = ${now} WHERE id = ${id} RETURNING id`;
    return rows.length === 1;
  }

  async remove(id: string): Promise<void> {
    await this.#database.sql`DELETE FROM server_instances WHERE id = ${id}`;
  }

  /** Removes and returns the rows whose heartbeat is older than `staleBefore`. */
  async removeStale(staleBefore: string): Promise<InstanceRecord[]> {
    const rows = await this.#database.sql<InstanceRow[]>`
      DELETE FROM server_instances WHERE heartbeat_at < ${staleBefore}
      RETURNING id, host, pid, started_at, heartbeat_at, marker`;
    return rows.map(toRecord);
  }

  async list(): Promise<InstanceRecord[]> {
    const rows = await this.#database.sql<InstanceRow[]>`
      SELECT id, host, pid, started_at, heartbeat_at, marker FROM server_instances ORDER BY started_at, id`;
    return rows.map(toRecord);
  }
}

function toRecord(row: InstanceRow): InstanceRecord {
  return {
    id: row.id,
    host: row.host,
    pid: Number(row.pid),
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    marker: row.marker,
  };
}
