/**
 * The in-memory `ChatRepository`, for tests and embeddings without a database. It keeps the order and
 * search rules of the database one: activity moves a chat up (a user message also unarchives it), and a
 * search matches each term as a word prefix (`chat-search.ts`), over titles and text messages only.
 */
import { InMemoryToolApprovalRepository } from '../approvals/in-memory-tool-approval-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import { InMemoryTurnRepository } from '../turns/in-memory-turn-repository.ts';
import {
  type Chat,
  type ChatFlagChange,
  type ChatListFilter,
  type ChatMessage,
  type ChatRepository,
  getMessageRole,
  type NewChat,
} from './chat-repository.ts';
import {
  type ChatSearchHit,
  type ChatSearchPage,
  type ChatSearchRequest,
  textMatches,
} from './chat-search.ts';

/** What a message is indexed as, like migration 14's triggers: the first 100 000 characters of text. */
const MAX_INDEXED = 100_000;

export class InMemoryChatRepository implements ChatRepository {
  readonly #chats = new Map<string, Chat>();
  readonly #messages = new Map<string, ChatMessage[]>();
  /** Each chat's place in the order of activity (the database's `activity_seq`). */
  readonly #activity = new Map<string, number>();
  #activityCount = 0;
  readonly turns: InMemoryTurnRepository = new InMemoryTurnRepository(this);
  readonly approvals: InMemoryToolApprovalRepository = new InMemoryToolApprovalRepository(this.turns);

  async createChat(chat: NewChat): Promise<void> {
    if (this.#chats.has(chat.id)) throw new Error(`A chat with id ${chat.id} already exists.`);
    this.#chats.set(chat.id, { ...chat, lastActivityAt: chat.createdAt, pinnedAt: null, archivedAt: null });
    this.#messages.set(chat.id, []);
    this.#touch(chat.id);
  }

  #touch(chatId: string): void {
    this.#activityCount += 1;
    this.#activity.set(chatId, this.#activityCount);
  }

  async getChat(chatId: string): Promise<Chat | undefined> {
    const chat = this.#chats.get(chatId);
    return chat ? { ...chat } : undefined;
  }

  #ordered(userId: string): Chat[] {
    const place = (chat: Chat) => this.#activity.get(chat.id) ?? 0;
    return [...this.#chats.values()]
      .filter((chat) => chat.userId === userId)
      .sort(
        (left, right) =>
          Number(left.pinnedAt === null) - Number(right.pinnedAt === null) ||
          right.lastActivityAt.localeCompare(left.lastActivityAt) ||
          place(right) - place(left),
      );
  }

  async listChats(userId: string, filter: ChatListFilter = 'all'): Promise<Chat[]> {
    return this.#ordered(userId)
      .filter((chat) => filter === 'all' || (filter === 'archived') === (chat.archivedAt !== null))
      .map((chat) => ({ ...chat }));
  }

  async setChatFlags(chatId: string, change: ChatFlagChange, now: string): Promise<Chat | undefined> {
    const chat = this.#chats.get(chatId);
    if (!chat) return undefined;
    const pinned = change.archived === true ? false : change.pinned;
    if (pinned !== undefined) chat.pinnedAt = pinned ? (chat.pinnedAt ?? now) : null;
    if (change.archived !== undefined) chat.archivedAt = change.archived ? (chat.archivedAt ?? now) : null;
    return { ...chat };
  }

  async searchChats(userId: string, request: ChatSearchRequest): Promise<ChatSearchPage> {
    const hits: ChatSearchHit[] = [];
    for (const chat of this.#ordered(userId)) {
      const titleMatched = textMatches(chat.title, request.terms);
      const found = (this.#messages.get(chat.id) ?? []).flatMap((message) => {
        const { item } = message;
        if (item.type !== 'user_text' && item.type !== 'assistant_text') return [];
        const text = item.text.slice(0, MAX_INDEXED);
        if (!textMatches(text, request.terms)) return [];
        const role: 'user' | 'assistant' = item.type === 'user_text' ? 'user' : 'assistant';
        return [{ id: message.id, seq: message.seq, role, text }];
      });
      if (!titleMatched && found.length === 0) continue;
      hits.push({
        chat: { ...chat },
        matches: found.length + Number(titleMatched),
        titleMatched,
        message: found.at(-1) ?? null,
      });
    }
    const page = hits.slice(request.offset, request.offset + request.limit);
    return { hits: page, hasMore: hits.length > request.offset + request.limit };
  }

  async renameChat(chatId: string, title: string, currentTitle?: string): Promise<boolean> {
    const chat = this.#chats.get(chatId);
    if (!chat || (currentTitle !== undefined && chat.title !== currentTitle)) return false;
    chat.title = title;
    return true;
  }

  async deleteChat(chatId: string): Promise<boolean> {
    this.#messages.delete(chatId);
    this.#activity.delete(chatId);
    this.approvals.deleteChatApprovals(chatId);
    this.turns.deleteChatTurns(chatId);
    return this.#chats.delete(chatId);
  }

  async appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage> {
    const messages = this.#messages.get(chatId);
    const chat = this.#chats.get(chatId);
    if (!messages || !chat) throw new Error(`Chat ${chatId} does not exist.`);
    const message: ChatMessage = {
      id: crypto.randomUUID(),
      chatId,
      seq: messages.length + 1,
      role: getMessageRole(item),
      item: structuredClone(item),
      createdAt,
    };
    messages.push(message);
    if (createdAt > chat.lastActivityAt) chat.lastActivityAt = createdAt;
    if (message.role === 'user') chat.archivedAt = null;
    this.#touch(chatId);
    return structuredClone(message);
  }

  async listMessages(chatId: string): Promise<ChatMessage[]> {
    const messages = this.#messages.get(chatId) ?? [];
    return structuredClone(messages.filter((message) => message.discardedBy === undefined));
  }

  async listMessageHistory(chatId: string): Promise<ChatMessage[]> {
    return structuredClone(this.#messages.get(chatId) ?? []);
  }

  async changeModel(chatId: string, model: string): Promise<boolean> {
    const chat = this.#chats.get(chatId);
    if (chat) chat.model = model;
    return chat !== undefined;
  }

  async changeSystemPrompt(chatId: string, systemPrompt: string | null): Promise<boolean> {
    const chat = this.#chats.get(chatId);
    if (chat) chat.systemPrompt = systemPrompt;
    return chat !== undefined;
  }

  /** Marks the chat's messages from `fromSeq` on as replaced by `turnId` (the turn repository's rewind). */
  discardMessages(chatId: string, fromSeq: number, turnId: string): void {
    for (const message of this.#messages.get(chatId) ?? []) {
      if (message.seq >= fromSeq && message.discardedBy === undefined) message.discardedBy = turnId;
    }
  }
}
