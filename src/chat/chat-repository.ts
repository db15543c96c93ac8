/**
 * Where chats and their messages live (design: "Data": `chats`, `messages`). One message row per
 * `ConversationItem`, ordered by `seq` within its chat. This module holds the contract and the
 * in-memory implementation; `src/db/` provides the SQLite/PostgreSQL one.
 */
import type { ConversationItem, ProviderId } from '../providers/types.ts';
import { InMemoryTurnStore } from './in-memory-turn-store.ts';
import type { TurnStore } from './turn-store.ts';

export interface Chat {
  id: string;
  userId: string;
  title: string;
  /** Real absolute path of the bound working directory; null = none bound. */
  workingDirectory: string | null;
  /** Whether path containment to `workingDirectory` applies to the chat's tools. */
  restricted: boolean;
  provider: ProviderId;
  model: string;
  /** The chat's own instructions, appended to the server's system prompt. */
  systemPrompt: string | null;
  /** ISO 8601. */
  createdAt: string;
}

/** The `role` column: who produced the item. */
export type MessageRole = 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  id: string;
  chatId: string;
  /** 1, 2, 3… within the chat, in history order. */
  seq: number;
  role: MessageRole;
  item: ConversationItem;
  /** ISO 8601. */
  createdAt: string;
}

export function getMessageRole(item: ConversationItem): MessageRole {
  switch (item.type) {
    case 'user_text':
      return 'user';
    case 'tool_result':
      return 'tool';
    default:
      return 'assistant';
  }
}

export interface ChatRepository {
  createChat(chat: Chat): Promise<void>;
  getChat(chatId: string): Promise<Chat | undefined>;
  /** The user's chats, newest first. */
  listChats(userId: string): Promise<Chat[]>;
  /** Deletes the chat and its messages; false when there was no such chat. */
  deleteChat(chatId: string): Promise<boolean>;
  /** Appends one item with the next `seq`; rejects when the chat does not exist (e.g. deleted mid-turn). */
  appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage>;
  /** Every message of the chat in `seq` order. */
  listMessages(chatId: string): Promise<ChatMessage[]>;
  /** The chat's turn records and their events (leases, fencing, replay). */
  readonly turns: TurnStore;
}

export class InMemoryChatRepository implements ChatRepository {
  readonly #chats = new Map<string, Chat>();
  readonly #messages = new Map<string, ChatMessage[]>();
  readonly turns: InMemoryTurnStore = new InMemoryTurnStore(this);

  async createChat(chat: Chat): Promise<void> {
    if (this.#chats.has(chat.id)) throw new Error(`A chat with id ${chat.id} already exists.`);
    this.#chats.set(chat.id, { ...chat });
    this.#messages.set(chat.id, []);
  }

  async getChat(chatId: string): Promise<Chat | undefined> {
    const chat = this.#chats.get(chatId);
    return chat ? { ...chat } : undefined;
  }

  async listChats(userId: string): Promise<Chat[]> {
    return [...this.#chats.values()]
      .filter((chat) => chat.userId === userId)
      .reverse()
      .sort((left, right) => right.createdAt.localeCompare(left.createdAt))
      .map((chat) => ({ ...chat }));
  }

  async deleteChat(chatId: string): Promise<boolean> {
    this.#messages.delete(chatId);
    this.turns.deleteChatTurns(chatId);
    return this.#chats.delete(chatId);
  }

  async appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage> {
    const messages = this.#messages.get(chatId);
    if (!messages) throw new Error(`Chat ${chatId} does not exist.`);
    const message: ChatMessage = {
      id: crypto.randomUUID(),
      chatId,
      seq: messages.length + 1,
      role: getMessageRole(item),
      item: structuredClone(item),
      createdAt,
    };
    messages.push(message);
    return structuredClone(message);
  }

  async listMessages(chatId: string): Promise<ChatMessage[]> {
    return structuredClone(this.#messages.get(chatId) ?? []);
  }
}
