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
 * - Turn records and their events (`turns`, migration 8) live in `DatabaseTurnRepository`, approval
 *   questions (`approvals`, migration 10) in `DatabaseToolApprovalRepository`; deleting a chat deletes them
 *   with it.
 */

import type { SQL } from 'bun';
import type { Chat, ChatMessage, ChatRepository } from '../chat/chat-repository.ts';
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
}
