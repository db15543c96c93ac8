/**
 * Where users' tool settings rows live (`user_tool_settings`). This module holds the contract and an
 * in-memory implementation; `src/db/` provides the SQLite/PostgreSQL one.
 */
import type { SavedToolSettings } from '../tools/types.ts';

export interface ToolSettingsRepository {
  /** Every saved row of a user, keyed by tool name. Values are raw stored data (may be corrupted). */
  getAll(userId: string): Promise<Record<string, unknown>>;
  get(userId: string, toolName: string): Promise<unknown | undefined>;
  /** Replaces the user's row for one tool atomically. */
  put(userId: string, toolName: string, settings: SavedToolSettings): Promise<void>;
  /**
   * Read-modify-write of one row as one atomic step: `change` receives the stored row (raw, possibly
   * corrupted; undefined when none) and returns the row to store; concurrent updates of the same row,
   * from this process or another instance, apply one after another, so none is lost or half-applied.
   * If `change` throws, nothing is stored and the error propagates. Optional so that simple fakes
   * stay valid; `ToolSettingsService` falls back to `get` + `put` without it.
   */
  update?(
    userId: string,
    toolName: string,
    change: (saved: unknown | undefined) => SavedToolSettings,
  ): Promise<SavedToolSettings>;
}

export class InMemoryToolSettingsRepository implements ToolSettingsRepository {
  readonly #rows = new Map<string, Map<string, SavedToolSettings>>();

  async getAll(userId: string): Promise<Record<string, unknown>> {
    return structuredClone(Object.fromEntries(this.#rows.get(userId) ?? []));
  }

  async get(userId: string, toolName: string): Promise<unknown | undefined> {
    const row = this.#rows.get(userId)?.get(toolName);
    return row === undefined ? undefined : structuredClone(row);
  }

  async put(userId: string, toolName: string, settings: SavedToolSettings): Promise<void> {
    let rows = this.#rows.get(userId);
    if (!rows) {
      rows = new Map();
      this.#rows.set(userId, rows);
    }
    rows.set(toolName, structuredClone(settings));
  }

  async update(
    userId: string,
    toolName: string,
    change: (saved: unknown | undefined) => SavedToolSettings,
  ): Promise<SavedToolSettings> {
    // No await between the read and the write: atomic within the one process that owns the map.
    const next = change(structuredClone(this.#rows.get(userId)?.get(toolName)));
    await this.put(userId, toolName, next);
    return structuredClone(next);
  }
}
