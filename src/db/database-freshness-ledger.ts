/**
 * `FreshnessLedger` on the database (`file_observations`, keyed by chat id and real path), so a restart
 * or another API instance keeps the read-before-write guarantee of `write_file` / `edit_file`.
 * `ledgerForChat(chatId)` is the factory a chat turn uses; a call without a chat gets a ledger that
 * remembers nothing beyond itself (in memory), as `getInMemoryLedgerForChat` does.
 */
import {
  type ChatFreshnessLedger,
  type FileObservation,
  InMemoryFreshnessLedger,
} from '../tools/freshness-ledger.ts';
import type { Database } from './database.ts';

interface ObservationRow {
  path: string;
  sha256: string;
  size: number | string;
  mtime_ms: number | string;
  covered_through: number | string;
  complete: boolean | number;
  covered_ranges: string | null;
}

/** `covered_ranges` JSON back to ranges; anything malformed reads as none (prefix coverage only). */
function parseRanges(text: string | null): [number, number][] | undefined {
  if (text === null) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    const valid =
      Array.isArray(value) &&
      value.length > 0 &&
      value.every(
        (range) =>
          Array.isArray(range) &&
          range.length === 2 &&
          range.every((line) => Number.isInteger(line) && (line as number) > 0),
      );
    return valid ? (value as [number, number][]) : undefined;
  } catch {
    return undefined;
  }
}

export class DatabaseFreshnessLedger implements ChatFreshnessLedger {
  readonly #database: Database;
  readonly #chatId: string;
  readonly #now: () => number;

  constructor(database: Database, chatId: string, now: () => number = Date.now) {
    this.#database = database;
    this.#chatId = chatId;
    this.#now = now;
  }

  async get(path: string): Promise<FileObservation | undefined> {
    const rows: ObservationRow[] = await this.#database.sql`SELECT path, sha256, size, mtime_ms,
      covered_through, complete, covered_ranges FROM file_observations WHERE chat_id = ${this.#chatId} AND path = ${path}`;
    const row = rows[0];
    if (!row) return undefined;
    const observation: FileObservation = {
      path: row.path,
      sha256: row.sha256,
      size: Number(row.size),
      mtimeMs: Number(row.mtime_ms),
      coveredThrough: Number(row.covered_through),
      complete: row.complete === true || row.complete === 1,
    };
    const coveredRanges = parseRanges(row.covered_ranges);
    if (coveredRanges) observation.coveredRanges = coveredRanges;
    return observation;
  }

  async put(observation: FileObservation): Promise<void> {
    const complete =
      this.#database.dialect === 'sqlite' ? Number(observation.complete) : observation.complete;
    const updatedAt = new Date(this.#now()).toISOString();
    const coveredRanges =
      observation.coveredRanges && observation.coveredRanges.length > 0
        ? JSON.stringify(observation.coveredRanges)
        : null;
    await this.#database.sql`INSERT INTO file_observations
        (chat_id, path, sha256, size, mtime_ms, covered_through, complete, covered_ranges, updated_at)
      VALUES (${this.#chatId}, ${observation.path}, ${observation.sha256}, ${observation.size},
        ${observation.mtimeMs}, ${observation.coveredThrough}, ${complete}, ${coveredRanges}, ${updatedAt})
      ON CONFLICT (chat_id, path) DO UPDATE SET sha256 = excluded.sha256, size = excluded.size,
        mtime_ms = excluded.mtime_ms, covered_through = excluded.covered_through,
        complete = excluded.complete, covered_ranges = excluded.covered_ranges,
        updated_at = excluded.updated_at`;
  }

  async delete(path: string): Promise<void> {
    await this.#database
      .sql`DELETE FROM file_observations WHERE chat_id = ${this.#chatId} AND path = ${path}`;
  }

  async forgetSince(since: number): Promise<void> {
    // ISO-8601 UTC text sorts like the instant it names.
    const sinceIso = new Date(since).toISOString();
    await this.#database
      .sql`DELETE FROM file_observations WHERE chat_id = ${this.#chatId} AND updated_at >= ${sinceIso}`;
  }
}

/** Returns the factory `ledgerForChat(chatId)` over `database`. */
export function createDatabaseLedgerFactory(
  database: Database,
  now: () => number = Date.now,
): (chatId: string | undefined) => ChatFreshnessLedger {
  return (chatId) =>
    chatId === undefined ? new InMemoryFreshnessLedger() : new DatabaseFreshnessLedger(database, chatId, now);
}

/** Forgets everything a chat has read; the chat repository calls it when a chat is deleted. */
export async function deleteChatObservations(database: Database, chatId: string): Promise<void> {
  await database.sql`DELETE FROM file_observations WHERE chat_id = ${chatId}`;
}
