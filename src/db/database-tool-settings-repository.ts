/**
 * `ToolSettingsRepository` on the database (`user_tool_settings`, one row per user and tool).
 *
 * Rows come back raw: `parameters_json` that does not parse is returned as the string it is, and an
 * `enabled` that is not a boolean stays what it is, so the settings resolver can log it and fall back to
 * defaults, so a corrupted row never breaks a chat. `update` serialises read-modify-write of a row:
 * SQLite with a `BEGIN IMMEDIATE` transaction (the file's write lock), PostgreSQL with a transaction
 * advisory lock on the (user, tool) pair.
 */
import type { ToolSettingsRepository } from '../settings/tool-settings-repository.ts';
import type { SavedToolSettings } from '../tools/types.ts';
import type { Database } from './database.ts';

interface SettingsRow {
  tool_name: string;
  enabled: boolean | number | null;
  parameters_json: string | null;
}

type Queryable = Database['sql'];

function decodeEnabled(value: SettingsRow['enabled']): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1) return true;
  if (value === 0) return false;
  return value;
}

/** The stored row as raw data: `{enabled?, parameters?}`, unvalidated. */
export function decodeSettingsRow(row: SettingsRow): Record<string, unknown> {
  const saved: Record<string, unknown> = {};
  const enabled = decodeEnabled(row.enabled);
  if (enabled !== undefined) saved.enabled = enabled;
  if (row.parameters_json !== null && row.parameters_json !== undefined) {
    try {
      saved.parameters = JSON.parse(row.parameters_json);
    } catch {
      saved.parameters = row.parameters_json;
    }
  }
  return saved;
}

export class DatabaseToolSettingsRepository implements ToolSettingsRepository {
  readonly #database: Database;
  readonly #now: () => number;

  constructor(database: Database, now: () => number = Date.now) {
    this.#database = database;
    this.#now = now;
  }

  async getAll(userId: string): Promise<Record<string, unknown>> {
    const rows: SettingsRow[] = await this.#database.sql`SELECT tool_name, enabled, parameters_json
      FROM user_tool_settings WHERE user_id = ${userId}`;
    const result: Record<string, unknown> = {};
    for (const row of rows) result[row.tool_name] = decodeSettingsRow(row);
    return result;
  }

  async get(userId: string, toolName: string): Promise<unknown | undefined> {
    return this.#select(this.#database.sql, userId, toolName);
  }

  async put(userId: string, toolName: string, settings: SavedToolSettings): Promise<void> {
    await this.#write(this.#database.sql, userId, toolName, settings);
  }

  async update(
    userId: string,
    toolName: string,
    change: (saved: unknown | undefined) => SavedToolSettings,
  ): Promise<SavedToolSettings> {
    const { sql, dialect } = this.#database;
    const body = async (transaction: Queryable) => {
      if (dialect === 'postgres') {
        await transaction`SELECT pg_advisory_xact_lock(hashtextextended(${`${userId}\n${toolName}`}, 0))`;
      }
      const next = change(await this.#select(transaction, userId, toolName));
      await this.#write(transaction, userId, toolName, next);
      return next;
    };
    return dialect === 'postgres' ? sql.begin(body) : sql.begin('immediate', body);
  }

  async #select(sql: Queryable, userId: string, toolName: string): Promise<unknown | undefined> {
    const rows: SettingsRow[] = await sql`SELECT tool_name, enabled, parameters_json
      FROM user_tool_settings WHERE user_id = ${userId} AND tool_name = ${toolName}`;
    return rows[0] ? decodeSettingsRow(rows[0]) : undefined;
  }

  async #write(sql: Queryable, userId: string, toolName: string, settings: SavedToolSettings): Promise<void> {
    const enabled =
      settings.enabled === undefined
        ? null
        : this.#database.dialect === 'sqlite'
          ? Number(settings.enabled)
          : settings.enabled;
    const parameters = settings.parameters === undefined ? null : JSON.stringify(settings.parameters);
    const updatedAt = new Date(this.#now()).toISOString();
    await sql`INSERT INTO user_tool_settings (user_id, tool_name, enabled, parameters_json, updated_at)
      VALUES (${userId}, ${toolName}, ${enabled}, ${parameters}, ${updatedAt})
      ON CONFLICT (user_id, tool_name) DO UPDATE SET enabled = excluded.enabled,
        parameters_json = excluded.parameters_json, updated_at = excluded.updated_at`;
  }
}
