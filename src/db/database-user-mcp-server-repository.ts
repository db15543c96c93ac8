/**
 * `UserMcpServerRepository` on the database (`user_mcp_servers`, migration 11). An insert that meets
 * an existing (user, name) does nothing and reports it, so two requests adding one name at once leave
 * one server and one 409.
 */
import type { SQL } from 'bun';
import type {
  StoredUserMcpServer,
  UserMcpServerRepository,
} from '../mcp-client/user-mcp-server-repository.ts';

interface ServerRow {
  user_id: string;
  name: string;
  url: string;
  header_names_json: string;
  sealed_headers: string | null;
  created_at: string;
  updated_at: string;
}

function fromRow(row: ServerRow): StoredUserMcpServer {
  return {
    userId: row.user_id,
    name: row.name,
    url: row.url,
    headerNames: JSON.parse(row.header_names_json) as string[],
    sealedHeaders: row.sealed_headers,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export class DatabaseUserMcpServerRepository implements UserMcpServerRepository {
  readonly #sql: SQL;

  constructor(database: { readonly sql: SQL }) {
    this.#sql = database.sql;
  }

  async list(userId: string): Promise<StoredUserMcpServer[]> {
    const rows: ServerRow[] = await this.#sql`SELECT * FROM user_mcp_servers WHERE user_id = ${userId}
      ORDER BY created_at, name`;
    return rows.map(fromRow);
  }

  async get(userId: string, name: string): Promise<StoredUserMcpServer | undefined> {
    const rows: ServerRow[] = await this.#sql`SELECT * FROM user_mcp_servers
      WHERE user_id = ${userId} AND name = ${name}`;
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async insert(server: StoredUserMcpServer): Promise<boolean> {
    const rows: { name: string }[] = await this.#sql`INSERT INTO user_mcp_servers
      (user_id, name, url, header_names_json, sealed_headers, created_at, updated_at)
      VALUES (${server.userId}, ${server.name}, ${server.url}, ${JSON.stringify(server.headerNames)},
        ${server.sealedHeaders}, ${server.createdAt}, ${server.updatedAt})
      ON CONFLICT (user_id, name) DO NOTHING RETURNING name`;
    return rows.length === 1;
  }

  async update(server: StoredUserMcpServer): Promise<boolean> {
    const rows: { name: string }[] = await this.#sql`UPDATE user_mcp_servers SET url = ${server.url},
      header_names_json = ${JSON.stringify(server.headerNames)}, sealed_headers = ${server.sealedHeaders},
      updated_at = ${server.updatedAt}
      WHERE user_id = ${server.userId} AND name = ${server.name} RETURNING name`;
    return rows.length === 1;
  }

  async delete(userId: string, name: string): Promise<boolean> {
    const rows: { name: string }[] = await this.#sql`DELETE FROM user_mcp_servers
      WHERE user_id = ${userId} AND name = ${name} RETURNING name`;
    return rows.length === 1;
  }
}
