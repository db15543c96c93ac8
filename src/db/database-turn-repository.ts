/**
 * `TurnRepository` on the database (`chat_turns`, `chat_turn_events`; migration 8).
 *
 * Guarantees:
 * - A claim ends a lapsed (or provably dead) running turn as `lost`, then inserts the new record with
 *   the next fencing token unless a turn still runs, each step one atomic statement. The partial unique
 *   index backs it, so two instances claiming at once get one winner and one `undefined`.
 * - A claim with a user limit counts the owner's running, unexpired turns in the statement that
 *   inserts; on PostgreSQL that statement runs under a transaction lock on the owner (an advisory lock
 *   keyed by the user id), so claims of one user from several instances are counted one after another.
 * - Every fenced write is atomic with its fence check (token, `running`, lease unexpired at the
 *   writer's clock). SQLite: one statement whose WHERE holds the check, atomic under the file's write
 *   lock (no explicit transaction: SQLite waits for a lock by blocking the thread, so a transaction
 *   held across awaits could stall another connection of the same process). PostgreSQL: a transaction
 *   that first updates the turn row under the check, taking its row lock, so a takeover either
 *   happened before (nothing is written) or waits for the write to commit.
 * - Events and messages are inserted with `ON CONFLICT DO NOTHING` on keys the holder chose, so a retry
 *   after an ambiguous failure (the connection dropped during commit) never duplicates.
 */
import type { SQL } from 'bun';
import type { ChatMessage } from '../chat/chat-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import { serializeTurnEvent } from '../turns/turn-event-json.ts';
import { type TurnFence, TurnFencedError } from '../turns/turn-fence.ts';
import type {
  ClaimTurnInput,
  FinishTurnInput,
  StoredTurnEvent,
  TurnRecord,
  TurnRepository,
  TurnState,
} from '../turns/turn-repository.ts';
import { UserTurnLimitError } from '../turns/user-turn-limit-error.ts';
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
  };
}

/** 1 when the fence requires an unexpired lease (numbers compare alike on both databases). */
function liveFlag(fence: TurnFence): number {
  return fence.requireLiveLease === false ? 0 : 1;
}

export class DatabaseTurnRepository implements TurnRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  /** PostgreSQL: locks the turn row under the fence condition, or throws. */
  async #lockFence(sql: SQL, fence: TurnFence): Promise<void> {
    const rows = await sql`UPDATE chat_turns SET last_write_at = ${fence.now}
      WHERE id = ${fence.turnId} AND fencing_token = ${fence.fencingToken} AND state = 'running'
        AND (${liveFlag(fence)} = 0 OR lease_expires_at >= ${fence.now})
      RETURNING id`;
    if (rows.length === 0) throw new TurnFencedError();
  }

  async #holdsFence(fence: TurnFence): Promise<boolean> {
    const rows = await this.#database.sql`SELECT id FROM chat_turns WHERE id = ${fence.turnId}
      AND fencing_token = ${fence.fencingToken} AND state = 'running' AND (${liveFlag(fence)} = 0 OR lease_expires_at >= ${fence.now})`;
    return rows.length > 0;
  }

  async claimTurn(input: ClaimTurnInput): Promise<TurnRecord | undefined> {
    const sql = this.#database.sql;
    const lostError = JSON.stringify({
      message: 'The instance running this turn stopped renewing its lease; the turn was taken over.',
    });
    await sql`UPDATE chat_turns SET state = 'lost', ended_at = ${input.now}, lease_expires_at = NULL,
        error_json = ${lostError}
      WHERE chat_id = ${input.chatId} AND state = 'running'
        AND (lease_expires_at < ${input.now} OR id = ${input.deadTurnId ?? ''})`;
    const limit = input.userTurnLimit ?? 0;
    let rows: TurnRow[];
    try {
      if (this.#database.dialect === 'sqlite' || limit === 0)
        rows = await this.#insertClaim(sql, input, limit);
      else {
        rows = await sql.begin(async (transaction) => {
          // Claims of one user's turns take turns, so each counts what the others committed: the
          // count below is a new statement, whose snapshot is taken after the lock was granted.
          await transaction`SELECT pg_advisory_xact_lock(hashtextextended('chat turns of ' || user_id, 0))
            FROM chats WHERE id = ${input.chatId}`;
          return this.#insertClaim(transaction, input, limit);
        });
      }
    } catch (error) {
      // A concurrent claim won the partial unique index or the token (PostgreSQL runs them at once).
      if (isUniqueViolation(error)) return undefined;
      throw error;
    }
    if (!rows[0]) {
      await this.#refuseForLimit(input, limit);
      return undefined;
    }
    // Only the newest turn can be re-attached to; older events would only take space.
    await sql`DELETE FROM chat_turn_events WHERE turn_id IN
      (SELECT id FROM chat_turns WHERE chat_id = ${input.chatId} AND id <> ${input.turnId})`;
    return toTurn(rows[0]);
  }

  /**
   * Inserts the claimed record unless the chat is gone, runs a turn, or (`limit` above 0) its owner
   * already runs `limit` turns with unexpired leases. One statement: on SQLite atomic under the file's
   * write lock; on PostgreSQL under the owner's lock taken before it.
   */
  #insertClaim(sql: SQL, input: ClaimTurnInput, limit: number): Promise<TurnRow[]> {
    return sql`INSERT INTO chat_turns (id, chat_id, fencing_token, holder, state,
        lease_expires_at, started_at, message_seq_at_start)
      SELECT ${input.turnId}, ${input.chatId},
        (SELECT COALESCE(MAX(fencing_token), 0) + 1 FROM chat_turns WHERE chat_id = ${input.chatId}),
        ${input.holder}, 'running', ${input.leaseExpiresAt}, ${input.now},
        (SELECT COALESCE(MAX(seq), 0) FROM messages WHERE chat_id = ${input.chatId})
      WHERE EXISTS (SELECT 1 FROM chats WHERE id = ${input.chatId})
        AND NOT EXISTS (SELECT 1 FROM chat_turns WHERE chat_id = ${input.chatId} AND state = 'running')
        AND (${limit} = 0 OR (SELECT COUNT(*) FROM chat_turns
          JOIN chats ON chats.id = chat_turns.chat_id
          WHERE chats.user_id = (SELECT user_id FROM chats WHERE id = ${input.chatId})
            AND chat_turns.state = 'running' AND chat_turns.lease_expires_at >= ${input.now}) < ${limit})
      RETURNING id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
        started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json,
        error_json`;
  }

  /**
   * After a refused claim: throws when the user's limit refused it, the chat being there and free.
   * A separate read, so a turn that ended in between may make it name the limit though a retry would
   * pass, which the caller's "retry after" covers; a busy chat is always reported as busy.
   */
  async #refuseForLimit(input: ClaimTurnInput, limit: number): Promise<void> {
    if (limit === 0) return;
    const sql = this.#database.sql;
    const running =
      await sql`SELECT id FROM chat_turns WHERE chat_id = ${input.chatId} AND state = 'running'`;
    const chat = await sql`SELECT id FROM chats WHERE id = ${input.chatId}`;
    if (running.length === 0 && chat.length > 0) throw new UserTurnLimitError(limit);
  }

  async renewTurn(fence: TurnFence, leaseExpiresAt: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chat_turns
      SET lease_expires_at = ${leaseExpiresAt}, last_write_at = ${fence.now}
      WHERE id = ${fence.turnId} AND fencing_token = ${fence.fencingToken} AND state = 'running'
        AND (${liveFlag(fence)} = 0 OR lease_expires_at >= ${fence.now})
      RETURNING id`;
    return rows.length > 0;
  }

  async appendTurnEvents(fence: TurnFence, events: readonly StoredTurnEvent[]): Promise<void> {
    if (events.length === 0) return;
    const payload = JSON.stringify(
      events.map((stored) => ({
        seq: stored.seq,
        endOffset: stored.endOffset,
        json: serializeTurnEvent(stored.event),
      })),
    );
    if (this.#database.dialect === 'sqlite') {
      const rows = await this.#database
        .sql`INSERT INTO chat_turn_events (turn_id, seq, end_offset, event_json)
        SELECT ${fence.turnId}, json_extract(value, '$.seq'), json_extract(value, '$.endOffset'),
          json_extract(value, '$.json')
        FROM json_each(${payload})
        WHERE EXISTS (SELECT 1 FROM chat_turns WHERE id = ${fence.turnId}
          AND fencing_token = ${fence.fencingToken} AND state = 'running' AND (${liveFlag(fence)} = 0 OR lease_expires_at >= ${fence.now}))
        ON CONFLICT (turn_id, seq) DO NOTHING
        RETURNING seq`;
      // Nothing inserted: refused by the fence, or every row was there already (a retry).
      if (rows.length === 0 && !(await this.#holdsFence(fence))) throw new TurnFencedError();
      return;
    }
    await this.#database.sql.begin(async (sql) => {
      await this.#lockFence(sql, fence);
      await sql`INSERT INTO chat_turn_events (turn_id, seq, end_offset, event_json)
        SELECT ${fence.turnId}, (value->>'seq')::integer, (value->>'endOffset')::integer, value->>'json'
        FROM json_array_elements(CAST(${payload} AS TEXT)::json)
        ON CONFLICT (turn_id, seq) DO NOTHING`;
    });
  }

  async appendTurnMessage(
    fence: TurnFence,
    chatId: string,
    messageId: string,
    item: ConversationItem,
    replaceFromSeq?: number,
  ): Promise<ChatMessage> {
    const message = { id: messageId, chatId, item, createdAt: fence.now };
    // A rerun's replacement is three statements: a transaction on SQLite too, its first statement the
    // fence's update, so it holds the write lock from the start and a turn taken over replaces nothing.
    if (this.#database.dialect === 'sqlite' && replaceFromSeq === undefined) {
      const inserted = await insertMessage(this.#database.sql, message, fence);
      if (inserted) return inserted;
      const existing = await selectMessage(this.#database.sql, messageId);
      if (existing) return existing; // an earlier attempt stored it
      if (!(await this.#holdsFence(fence))) throw new TurnFencedError();
      throw new Error(`Chat ${chatId} does not exist.`);
    }
    return this.#database.sql.begin(async (sql) => {
      await this.#lockFence(sql, fence);
      const existing = await selectMessage(sql, messageId);
      if (existing) return existing; // an earlier attempt committed it (and its replacement)
      if (replaceFromSeq !== undefined) {
        await sql`UPDATE messages SET discarded_by = ${fence.turnId}
          WHERE chat_id = ${chatId} AND seq >= ${replaceFromSeq} AND discarded_by IS NULL`;
        await sql`UPDATE chat_turns SET discarded_by = ${fence.turnId}
          WHERE chat_id = ${chatId} AND message_seq_at_start >= ${replaceFromSeq - 1}
            AND id <> ${fence.turnId} AND discarded_by IS NULL`;
      }
      const inserted = await insertMessage(sql, message);
      if (inserted) return inserted;
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
        progress_json = ${outcome.progress === undefined ? null : JSON.stringify(outcome.progress)},
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

  async listTurns(chatId: string): Promise<TurnRecord[]> {
    const rows: TurnRow[] = await this.#database
      .sql`SELECT id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json
      FROM chat_turns WHERE chat_id = ${chatId} AND discarded_by IS NULL ORDER BY fencing_token`;
    return rows.map(toTurn);
  }

  async latestTurn(chatId: string): Promise<TurnRecord | undefined> {
    const rows: TurnRow[] = await this.#database
      .sql`SELECT id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json
      FROM chat_turns WHERE chat_id = ${chatId} ORDER BY fencing_token DESC LIMIT 1`;
    return rows[0] ? toTurn(rows[0]) : undefined;
  }

  async getTurn(turnId: string): Promise<TurnRecord | undefined> {
    const rows: TurnRow[] = await this.#database
      .sql`SELECT id, chat_id, fencing_token, holder, state, lease_expires_at, cancel_requested_at,
      started_at, ended_at, message_seq_at_start, usage_json, durations_json, progress_json, error_json
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
