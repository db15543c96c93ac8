/**
 * `ChatRepository` on the database (`chats`, `messages`; migration 3), so chats and their history
 * survive a restart and every API instance can serve any turn when several share one PostgreSQL database.
 *
 * Guarantees:
 * - A message's `seq` is the chat's next number, computed in the INSERT itself while the chat row is
 *   locked (PostgreSQL) or under the write lock (SQLite); the unique `(chat_id, seq)` index backs it.
 * - Appending to a chat that does not exist (deleted mid-turn) rejects, and inserts nothing.
 * - Deleting a chat deletes its messages and its freshness-ledger rows (`file_observations`) in one
 *   transaction.
 * - The item is stored as JSON text and read back exactly (provider fields included).
 * - Order and search (migration 14): `last_activity_at` and `activity_seq` are kept by triggers on
 *   `messages`, the search entries and their full-text index by triggers on `chats` and `messages`, so no
 *   write path can forget them; a search reads the index (FTS5 `MATCH` on SQLite, `@@` on a GIN-indexed
 *   `tsvector` on PostgreSQL) joined to the caller's own chats, never another user's.
 * - Turn records and their events (`turns`, migration 8) live in `DatabaseTurnRepository`, approval
 *   questions (`approvals`, migration 10) in `DatabaseToolApprovalRepository`; deleting a chat deletes them
 *   with it.
 */

import type { SQL } from 'bun';
import type {
  Chat,
  ChatFlagChange,
  ChatListFilter,
  ChatMessage,
  ChatRepository,
  NewChat,
} from '../chat/chat-repository.ts';
import type { ChatSearchHit, ChatSearchPage, ChatSearchRequest } from '../chat/chat-search.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import type { Database } from './database.ts';
import { insertMessage, listMessageRows } from './database-message-insert.ts';
import { DatabaseToolApprovalRepository } from './database-tool-approval-repository.ts';
import { DatabaseTurnRepository } from './database-turn-repository.ts';

interface ChatRow {
  id: string;
  user_id: string;
  title: string;
  working_directory: string | null;
  confined: boolean | number;
  provider: string;
  model: string;
  system_prompt: string | null;
  created_at: string;
  last_activity_at: string;
  pinned_at: string | null;
  archived_at: string | null;
}

const CHAT_COLUMNS = `c.id, c.user_id, c.title, c.working_directory, c.confined, c.provider, c.model,
  c.system_prompt, c.created_at, c.last_activity_at, c.pinned_at, c.archived_at`;

/** Pinned chats first, then by last activity (same millisecond: the later activity first). */
const CHAT_ORDER = '(c.pinned_at IS NULL), c.last_activity_at DESC, c.activity_seq DESC';

interface SearchRow extends ChatRow {
  matches: number | string | bigint;
  title_matched: number | string | bigint;
  message_id: string | null;
}

interface SearchEntryRow {
  message_id: string;
  seq: number | string | bigint;
  role: string;
  body: string;
}

function toChat(row: ChatRow): Chat {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    workingDirectory: row.working_directory,
    confined: row.confined === true || row.confined === 1,
    provider: row.provider as ProviderId,
    model: row.model,
    systemPrompt: row.system_prompt,
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    pinnedAt: row.pinned_at,
    archivedAt: row.archived_at,
  };
}

export class DatabaseChatRepository implements ChatRepository {
  readonly #database: Database;
  readonly #createId: () => string;
  readonly turns: DatabaseTurnRepository;
  readonly approvals: DatabaseToolApprovalRepository;

  constructor(database: Database, createId: () => string = () => crypto.randomUUID()) {
    this.#database = database;
    this.#createId = createId;
    this.turns = new DatabaseTurnRepository(database);
    this.approvals = new DatabaseToolApprovalRepository(database);
  }

  #flag(value: boolean): boolean | number {
    return this.#database.dialect === 'sqlite' ? Number(value) : value;
  }

  async createChat(chat: NewChat): Promise<void> {
    await this.#database.sql`INSERT INTO chats
        (id, user_id, title, working_directory, confined, provider, model, system_prompt, created_at,
          last_activity_at)
      VALUES (${chat.id}, ${chat.userId}, ${chat.title}, ${chat.workingDirectory},
        ${this.#flag(chat.confined)}, ${chat.provider}, ${chat.model}, ${chat.systemPrompt},
        ${chat.createdAt}, ${chat.createdAt})`;
  }

  async getChat(chatId: string): Promise<Chat | undefined> {
    const rows: ChatRow[] = await this.#database.sql`SELECT ${this.#database.sql.unsafe(CHAT_COLUMNS)}
      FROM chats c WHERE c.id = ${chatId}`;
    return rows[0] ? toChat(rows[0]) : undefined;
  }

  async listChats(userId: string, filter: ChatListFilter = 'all'): Promise<Chat[]> {
    const { sql } = this.#database;
    const archived =
      filter === 'all'
        ? sql``
        : filter === 'archived'
          ? sql`AND c.archived_at IS NOT NULL`
          : sql`AND c.archived_at IS NULL`;
    const rows: ChatRow[] = await sql`SELECT ${sql.unsafe(CHAT_COLUMNS)} FROM chats c
      WHERE c.user_id = ${userId} ${archived} ORDER BY ${sql.unsafe(CHAT_ORDER)}`;
    return rows.map(toChat);
  }

  async setChatFlags(chatId: string, change: ChatFlagChange, now: string): Promise<Chat | undefined> {
    const { sql } = this.#database;
    // Each flag: unchanged when absent, kept at its first stamp when already set, else stamped now.
    const stamp = (column: 'pinned_at' | 'archived_at', value: boolean | undefined) =>
      value === undefined
        ? sql.unsafe(column)
        : value
          ? sql`COALESCE(${sql.unsafe(column)}, ${now})`
          : sql`NULL`;
    const pinned = change.archived === true ? false : change.pinned;
    const rows: { id: string }[] = await sql`UPDATE chats
      SET pinned_at = ${stamp('pinned_at', pinned)}, archived_at = ${stamp('archived_at', change.archived)}
      WHERE id = ${chatId} RETURNING id`;
    return rows.length > 0 ? this.getChat(chatId) : undefined;
  }

  async searchChats(userId: string, request: ChatSearchRequest): Promise<ChatSearchPage> {
    const { sql, dialect } = this.#database;
    // The engine's own query of the terms, each a prefix; terms hold only letters, marks and digits.
    const found =
      dialect === 'sqlite'
        ? sql`SELECT e.chat_id, e.message_id, e.seq FROM chat_search_index
            JOIN chat_search_entries e ON e.id = chat_search_index.rowid
            JOIN chats c ON c.id = e.chat_id
            WHERE chat_search_index MATCH ${request.terms.map((term) => `"${term}"*`).join(' ')}
              AND c.user_id = ${userId}`
        : sql`SELECT e.chat_id, e.message_id, e.seq FROM chat_search_entries e
            JOIN chats c ON c.id = e.chat_id
            WHERE e.search_vector @@ to_tsquery('simple', ${request.terms.map((term) => `${term}:*`).join(' & ')})
              AND c.user_id = ${userId}`;
    const rows: SearchRow[] = await sql`WITH hits AS (${found}),
      ranked AS (SELECT chat_id, message_id,
        COUNT(*) OVER (PARTITION BY chat_id) AS matches,
        MAX(CASE WHEN message_id IS NULL THEN 1 ELSE 0 END) OVER (PARTITION BY chat_id) AS title_matched,
        ROW_NUMBER() OVER (PARTITION BY chat_id ORDER BY COALESCE(seq, 0) DESC) AS n
        FROM hits)
      SELECT ${sql.unsafe(CHAT_COLUMNS)}, r.matches, r.title_matched, r.message_id
      FROM ranked r JOIN chats c ON c.id = r.chat_id
      WHERE r.n = 1 ORDER BY ${sql.unsafe(CHAT_ORDER)}
      LIMIT ${request.limit + 1} OFFSET ${request.offset}`;
    const page = rows.slice(0, request.limit);
    const messageIds = page.flatMap((row) => (row.message_id === null ? [] : [row.message_id]));
    const entries: SearchEntryRow[] =
      messageIds.length === 0
        ? []
        : await sql`SELECT message_id, seq, role, body FROM chat_search_entries
            WHERE message_id IN ${sql(messageIds)}`;
    const byId = new Map(entries.map((entry) => [entry.message_id, entry]));
    const hits = page.map((row): ChatSearchHit => {
      const entry = row.message_id === null ? undefined : byId.get(row.message_id);
      return {
        chat: toChat(row),
        matches: Number(row.matches),
        titleMatched: Number(row.title_matched) === 1,
        message: entry
          ? {
              id: entry.message_id,
              seq: Number(entry.seq),
              role: entry.role === 'user' ? 'user' : 'assistant',
              text: entry.body,
            }
          : null,
      };
    });
    return { hits, hasMore: rows.length > request.limit };
  }

  async renameChat(chatId: string, title: string, currentTitle?: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chats SET title = ${title} WHERE id = ${chatId}
      AND (${currentTitle === undefined ? 1 : 0} = 1 OR title = ${currentTitle ?? ''}) RETURNING id`;
    return rows.length > 0;
  }

  async deleteChat(chatId: string): Promise<boolean> {
    return this.#database.sql.begin(async (transaction) => {
      await transaction`DELETE FROM messages WHERE chat_id = ${chatId}`;
      await transaction`DELETE FROM file_observations WHERE chat_id = ${chatId}`;
      await transaction`DELETE FROM chat_turn_events WHERE turn_id IN
        (SELECT id FROM chat_turns WHERE chat_id = ${chatId})`;
      await transaction`DELETE FROM tool_approvals WHERE chat_id = ${chatId}`;
      await transaction`DELETE FROM chat_turns WHERE chat_id = ${chatId}`;
      const deleted: { id: string }[] =
        await transaction`DELETE FROM chats WHERE id = ${chatId} RETURNING id`;
      return deleted.length > 0;
    });
  }

  async appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage> {
    const insert = async (sql: SQL): Promise<ChatMessage> => {
      const message = await insertMessage(sql, { id: this.#createId(), chatId, item, createdAt });
      if (!message) throw new Error(`Chat ${chatId} does not exist.`);
      return message;
    };
    // SQLite: one statement is atomic under the database's single write lock (and an explicit
    // transaction would triple the cost of an append). PostgreSQL: lock the chat row first, so
    // concurrent appends to one chat take their seqs in turn and a concurrent delete waits.
    if (this.#database.dialect === 'sqlite') return insert(this.#database.sql);
    return this.#database.sql.begin(async (transaction) => {
      await transaction`SELECT id FROM chats WHERE id = ${chatId} FOR UPDATE`;
      return insert(transaction);
    });
  }

  listMessages(chatId: string): Promise<ChatMessage[]> {
    return listMessageRows(this.#database.sql, chatId);
  }

  listMessageHistory(chatId: string): Promise<ChatMessage[]> {
    return listMessageRows(this.#database.sql, chatId, { discarded: true });
  }

  async changeModel(chatId: string, model: string): Promise<boolean> {
    const rows = await this.#database
      .sql`UPDATE chats SET model = ${model} WHERE id = ${chatId} RETURNING id`;
    return rows.length > 0;
  }

  async changeSystemPrompt(chatId: string, systemPrompt: string | null): Promise<boolean> {
    const rows = await this.#database
      .sql`UPDATE chats SET system_prompt = ${systemPrompt} WHERE id = ${chatId} RETURNING id`;
    return rows.length > 0;
  }
}
