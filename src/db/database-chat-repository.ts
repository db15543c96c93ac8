/**
 * `ChatRepository` on the database (`chats`, `messages`; migration 3), so chats and their history
 * survive a restart and every API instance can serve any turn (design.md "Growing past one machine").
 *
 * Guarantees:
 * - A message's `seq` is the chat's next number, computed in the INSERT itself while the chat row is
 *   locked (PostgreSQL) or under the write lock (SQLite); the unique `(chat_id, seq)` index backs it.
 * - Appending to a chat that does not exist (deleted mid-turn) rejects, and inserts nothing.
 * - Deleting a chat deletes its messages and its freshness-ledger rows (`file_observations`) in one
 *   transaction.
 * - The item is stored as JSON text and read back exactly (provider fields included).
 * - Turn leases (`chat_turn_leases`, migration 5): one claim statement, so two instances never both
 *   hold a chat's turn; an expired lease (its instance died) is taken over.
 */

import type { SQL } from 'bun';
import type { Chat, ChatMessage, ChatRepository, MessageRole } from '../chat/chat-repository.ts';
import { getMessageRole } from '../chat/chat-repository.ts';
import type { ConversationItem, ProviderId } from '../providers/types.ts';
import type { Database } from './database.ts';

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
}

interface MessageRow {
  id: string;
  chat_id: string;
  seq: number | string | bigint;
  role: string;
  content_json: string;
  created_at: string;
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
  };
}

function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    seq: Number(row.seq),
    role: row.role as MessageRole,
    item: JSON.parse(row.content_json) as ConversationItem,
    createdAt: row.created_at,
  };
}

/**
 * Ends every turn lease. Only for a database one server uses alone (SQLite): at its start no turn can
 * be running, so leases left by a `kill -9` are freed at once instead of after their expiry.
 */
export async function releaseAllTurnLeases(database: Database): Promise<void> {
  await database.sql`DELETE FROM chat_turn_leases`;
}

export class DatabaseChatRepository implements ChatRepository {
  readonly #database: Database;
  readonly #createId: () => string;

  constructor(database: Database, createId: () => string = () => crypto.randomUUID()) {
    this.#database = database;
    this.#createId = createId;
  }

  #flag(value: boolean): boolean | number {
    return this.#database.dialect === 'sqlite' ? Number(value) : value;
  }

  async createChat(chat: Chat): Promise<void> {
    await this.#database.sql`INSERT INTO chats
        (id, user_id, title, working_directory, confined, provider, model, system_prompt, created_at)
      VALUES (${chat.id}, ${chat.userId}, ${chat.title}, ${chat.workingDirectory},
        ${this.#flag(chat.confined)}, ${chat.provider}, ${chat.model}, ${chat.systemPrompt},
        ${chat.createdAt})`;
  }

  async getChat(chatId: string): Promise<Chat | undefined> {
    const rows: ChatRow[] = await this.#database.sql`SELECT id, user_id, title, working_directory,
      confined, provider, model, system_prompt, created_at FROM chats WHERE id = ${chatId}`;
    return rows[0] ? toChat(rows[0]) : undefined;
  }

  async listChats(userId: string): Promise<Chat[]> {
    const rows: ChatRow[] = await this.#database.sql`SELECT id, user_id, title, working_directory,
      confined, provider, model, system_prompt, created_at FROM chats WHERE user_id = ${userId}
      ORDER BY created_at DESC, id DESC`;
    return rows.map(toChat);
  }

  async deleteChat(chatId: string): Promise<boolean> {
    return this.#database.sql.begin(async (transaction) => {
      await transaction`DELETE FROM messages WHERE chat_id = ${chatId}`;
      await transaction`DELETE FROM file_observations WHERE chat_id = ${chatId}`;
      await transaction`DELETE FROM chat_turn_leases WHERE chat_id = ${chatId}`;
      const deleted: { id: string }[] =
        await transaction`DELETE FROM chats WHERE id = ${chatId} RETURNING id`;
      return deleted.length > 0;
    });
  }

  async appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage> {
    const id = this.#createId();
    const role = getMessageRole(item);
    const contentJson = JSON.stringify(item);
    const insert = async (sql: SQL): Promise<ChatMessage> => {
      const rows: MessageRow[] = await sql`INSERT INTO messages
          (id, chat_id, seq, role, content_json, created_at)
        SELECT ${id}, ${chatId},
          (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE chat_id = ${chatId}),
          ${role}, ${contentJson}, ${createdAt}
        WHERE EXISTS (SELECT 1 FROM chats WHERE id = ${chatId})
        RETURNING id, chat_id, seq, role, content_json, created_at`;
      if (!rows[0]) throw new Error(`Chat ${chatId} does not exist.`);
      return toMessage(rows[0]);
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

  async claimTurnLease(chatId: string, owner: string, now: string, expiresAt: string): Promise<boolean> {
    // One statement: insert, or take over a lease that has expired; a live one is left alone and
    // nothing is returned. Atomic on both databases (row lock / write lock).
    // A chat deleted meanwhile gets no row (a delete racing past the EXISTS still fails the foreign key).
    const rows: { owner: string }[] = await this.#database.sql`INSERT INTO chat_turn_leases
        (chat_id, owner, expires_at)
        SELECT ${chatId}, ${owner}, ${expiresAt} WHERE EXISTS (SELECT 1 FROM chats WHERE id = ${chatId})
      ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at,
          cancel_requested_at = NULL
        WHERE chat_turn_leases.expires_at < ${now}
      RETURNING owner`;
    return rows[0]?.owner === owner;
  }

  async renewTurnLease(chatId: string, owner: string, expiresAt: string): Promise<void> {
    await this.#database.sql`UPDATE chat_turn_leases SET expires_at = ${expiresAt}
      WHERE chat_id = ${chatId} AND owner = ${owner}`;
  }

  async releaseTurnLease(chatId: string, owner: string): Promise<void> {
    await this.#database.sql`DELETE FROM chat_turn_leases WHERE chat_id = ${chatId} AND owner = ${owner}`;
  }

  async requestTurnCancel(chatId: string, now: string): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE chat_turn_leases SET cancel_requested_at = ${now}
      WHERE chat_id = ${chatId} AND expires_at >= ${now} RETURNING chat_id`;
    return rows.length > 0;
  }

  async isTurnCancelRequested(chatId: string, owner: string): Promise<boolean> {
    const rows: { cancel_requested_at: string | null }[] = await this.#database.sql`SELECT cancel_requested_at
      FROM chat_turn_leases WHERE chat_id = ${chatId} AND owner = ${owner}`;
    return rows[0]?.cancel_requested_at != null;
  }

  async listMessages(chatId: string): Promise<ChatMessage[]> {
    const rows: MessageRow[] = await this.#database.sql`SELECT id, chat_id, seq, role, content_json,
      created_at FROM messages WHERE chat_id = ${chatId} ORDER BY seq`;
    return rows.map(toMessage);
  }
}
