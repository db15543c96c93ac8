/**
 * `TurnStore` on the database (`chat_turns`, `chat_turn_events`; migration 8).
 *
 * Guarantees:
 * - A claim is one transaction: end a lapsed (or provably dead) running turn as `lost`, insert the new
 *   record with the next fencing token unless a turn still runs. The partial unique index backs it, so
 *   two instances claiming at once get one winner and one `undefined` (never an error).
 * - Every fenced write starts its transaction by updating the turn row under the fence condition
 *   (token, `running`, lease unexpired at the writer's clock). That takes the row's write lock
 *   (PostgreSQL) or the file's (SQLite) before anything else is written, so a takeover either happens
 *   before (the write finds no row and writes nothing) or waits for the write to commit.
 * - Events and messages are inserted with `ON CONFLICT DO NOTHING` on keys the holder chose, so a retry
 *   after an ambiguous failure (the connection dropped during commit) never duplicates.
 */
import type { SQL } from 'bun';
import type { ChatMessage } from '../chat/chat-repository.ts';
import {
  type ClaimTurnInput,
  type FinishTurnInput,
  type StoredTurnEvent,
  type TurnFence,
  TurnFencedError,
  type TurnRecord,
  type TurnState,
  type TurnStore,
} from '../chat/turn-store.ts';
import { serializeTurnEvent } from '../chat/turn-event-json.ts';
import type { ConversationItem } from '../providers/types.ts';
import type { Database } from './database.ts';
import { insertMessage, selectMessage } from './database-message-insert.ts';
import { isUniqueViolation } from './database-user-repository.ts';

interface TurnRow {
  id: string;
  chat_id: string;
  fencing_token: number | string | bigint;
  holder: string;
  state: string;
  lease_expires_at: string | null;
  cancel_requested_at: string | null;
  started_at: string;
  ended_at: string | null;
  message_seq_at_start: number | string | bigint;
  usage_json: string | null;
  durations_json: string | null;
  progress_json: string | null;
  error_json: string | null;
  pending_approvals_json: string;
}

interface EventRow {
  seq: number | string | bigint;
  end_offset: number | string | bigint;
  event_json: string;
}

function parseJson<T>(text: string | null): T | null {
  return text === null ? null : (JSON.parse(text) as T);
}

function toTurn(row: TurnRow): TurnRecord {
  return {
    id: row.id,
    chatId: row.chat_id,
    fencingToken: Number(row.fencing_token),
    holder: row.holder,
    state: row.state as TurnState,
    leaseExpiresAt: row.lease_expires_at,
    cancelRequestedAt: row.cancel_requested_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    messageSeqAtStart: Number(row.message_seq_at_start),
    usage: parseJson(row.usage_json),
    durations: parseJson(row.durations_json),
    progress: parseJson(row.progress_json),
    error: parseJson(row.error_json),
    pendingApprovals: parseJson<unknown[]>(row.pending_approvals_json) ?? [],
  };
}

export class DatabaseTurnStore implements TurnStore {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** A transaction that takes the write lock at once (SQLite: BEGIN IMMEDIATE). */
  #begin<T>(work: (sql: SQL) => Promise<T>): Promise<T> {
    return this.#database.dialect === 'sqlite'
      ? this.#database.sql.begin('immediate', work)
      : this.#database.sql.begin(work);
  }

  /** The fence check that opens every fenced transaction; throws when it no longer holds. */
  async #checkFence(sql: SQL, fence: TurnFence): Promise<void> {
    const rows = await sql`UPDATE chat_turns SET last_write_at = ${fence.now}
      WHERE id = ${fence.turnId} AND fencing_token = ${fence.fencingToken} AND state = 'running'
        AND lease_expires_at >= ${fence.now}
      RETURNING id`;
    if (rows.length === 0) throw new TurnFencedError();
  }

  async claimTurn(input: ClaimTurnInput): Promise<TurnRecord | undefined> {
    const lostError = JSON.stringify({
      message: 'The instance running this turn stopped renewing its lease; the turn was taken over.',
    });
    try {
      return await this.#begin(async (sql) => {
        await sql`UPDATE chat_turns SET state = 'lost', ended_at = ${input.now}, lease_expires_at = NULL,
            error_json = ${lostError}
          WHERE chat_id = ${input.chatId} AND state = 'running'
            AND (lease_expires_at < ${input.now} OR id = ${input.deadTurnId ?? ''})`;
        const rows: TurnRow[] = await sql`INSERT INTO chat_turns (id, chat_id, fencing_token, holder, state,
            lease_expires_at, started_at, message_seq_at_start, pending_approvals_json)
          SELECT ${input.turnId}, ${input.chatId},
            (SELECT COALESCE(MAX(fencing_token), 0) + 1 FROM chat_turns WHERE chat_id = ${input.chatId}),
            ${input.holder}, 'running', ${input.leaseExpiresAt}, ${input.now},
            (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = ${input.chatId}), '[]'
          WHERE EXISTS (SELECT 1 FROM chats WHERE id = ${input.chatId})
            AND NOT EXISTS (SELECT 1 FROM chat_turns WHERE chat_id = ${input.chatId} AND state = 'running')
          RETURNING id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json,
      pending_approvals_json`;
        if (!rows[0]) return undefined;
        // Only the newest turn can be re-attached to; older events would only take space.
        await sql`DELETE FROM chat_turn_events WHERE turn_id IN
          (SELECT id FROM chat_turns WHERE chat_id = ${input.chatId} AND id <> ${input.turnId})`;
        return toTurn(rows[0]);
      });
    } catch (error) {
      // A concurrent claim won the partial unique index (PostgreSQL; SQLite claims run one at a time).
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
  }

  async renewTurn(fence: TurnFence, leaseExpiresAt: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chat_turns
      SET lease_expires_at = ${leaseExpiresAt}, last_write_at = ${fence.now}
      WHERE id = ${fence.turnId} AND fencing_token = ${fence.fencingToken} AND state = 'running'
        AND lease_expires_at >= ${fence.now}
      RETURNING id`;
    return rows.length > 0;
  }

  async appendTurnEvents(fence: TurnFence, events: readonly StoredTurnEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((stored) => ({
      turn_id: fence.turnId,
      seq: stored.seq,
      end_offset: stored.endOffset,
      event_json: serializeTurnEvent(stored.event),
    }));
    await this.#begin(async (sql) => {
      await this.#checkFence(sql, fence);
      await sql`INSERT INTO chat_turn_events ${sql(rows)} ON CONFLICT (turn_id, seq) DO NOTHING`;
    });
  }

  async appendTurnMessage(
    fence: TurnFence,
    chatId: string,
    messageId: string,
    item: ConversationItem,
  ): Promise<ChatMessage> {
    return this.#begin(async (sql) => {
      await this.#checkFence(sql, fence);
      const inserted = await insertMessage(sql, { id: messageId, chatId, item, createdAt: fence.now });
      if (inserted) return inserted;
      // Nothing inserted: an earlier attempt did (a retry), or the chat was deleted.
      const existing = await selectMessage(sql, messageId);
      if (existing) return existing;
      throw new Error(`Chat ${chatId} does not exist.`);
    });
  }

  async finishTurn(fence: TurnFence, outcome: FinishTurnInput): Promise<boolean> {
    // Not fenced on the lease's expiry: a turn that ended while the database was unreachable still
    // records how it ended, as long as nobody took it over meanwhile (state still `running`).
    const rows = await this.#database.sql`UPDATE chat_turns SET state = ${outcome.state},
        ended_at = ${outcome.endedAt}, lease_expires_at = NULL, last_write_at = ${fence.now},
        usage_json = ${outcome.usage === undefined ? null : JSON.stringify(outcome.usage)},
        durations_json = ${outcome.durations === undefined ? null : JSON.stringify(outcome.durations)},
        error_json = ${outcome.error === undefined ? null : JSON.stringify(outcome.error)}
      WHERE id = ${fence.turnId} AND fencing_token = ${fence.fencingToken} AND state = 'running'
      RETURNING id`;
    return rows.length > 0;
  }

  async markTurnLost(chatId: string, now: string, reason: string, deadTurnId?: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chat_turns SET state = 'lost', ended_at = ${now},
        lease_expires_at = NULL, error_json = ${JSON.stringify({ message: reason })}
      WHERE chat_id = ${chatId} AND state = 'running'
        AND (lease_expires_at < ${now} OR id = ${deadTurnId ?? ''})
      RETURNING id`;
    return rows.length > 0;
  }

  async latestTurn(chatId: string): Promise<TurnRecord | undefined> {
    const rows: TurnRow[] = await this.#database.sql`SELECT id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json,
      pending_approvals_json
      FROM chat_turns WHERE chat_id = ${chatId} ORDER BY fencing_token DESC LIMIT 1`;
    return rows[0] ? toTurn(rows[0]) : undefined;
  }

  async getTurn(turnId: string): Promise<TurnRecord | undefined> {
    const rows: TurnRow[] = await this.#database.sql`SELECT id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json,
      pending_approvals_json
      FROM chat_turns WHERE id = ${turnId}`;
    return rows[0] ? toTurn(rows[0]) : undefined;
  }

  async listTurnEvents(turnId: string, afterSeq: number, limit: number): Promise<StoredTurnEvent[]> {
    const rows: EventRow[] = await this.#database.sql`SELECT seq, end_offset, event_json
      FROM chat_turn_events WHERE turn_id = ${turnId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
    return rows.map((row) => ({
      seq: Number(row.seq),
      endOffset: Number(row.end_offset),
      event: JSON.parse(row.event_json),
    }));
  }

  async turnEventsEnd(turnId: string): Promise<{ seq: number; endOffset: number }> {
    const rows: EventRow[] = await this.#database.sql`SELECT seq, end_offset, '' AS event_json
      FROM chat_turn_events WHERE turn_id = ${turnId} ORDER BY seq DESC LIMIT 1`;
    return { seq: Number(rows[0]?.seq ?? 0), endOffset: Number(rows[0]?.end_offset ?? 0) };
  }

  async requestTurnCancel(turnId: string, now: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chat_turns SET cancel_requested_at = ${now}
      WHERE id = ${turnId} AND state = 'running' AND lease_expires_at >= ${now} RETURNING id`;
    return rows.length > 0;
  }
}
