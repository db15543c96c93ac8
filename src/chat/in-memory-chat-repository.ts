/** The in-memory `ChatRepository`, for tests and embeddings without a database. */
import { InMemoryToolApprovalRepository } from '../approvals/in-memory-tool-approval-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import { InMemoryTurnRepository } from '../turns/in-memory-turn-repository.ts';
import { type Chat, type ChatMessage, type ChatRepository, getMessageRole } from './chat-repository.ts';

export class InMemoryChatRepository implements ChatRepository {
  readonly #chats = new Map<string, Chat>();
  readonly #messages = new Map<string, ChatMessage[]>();
  readonly turns: InMemoryTurnRepository = new InMemoryTurnRepository(this);
  readonly approvals: InMemoryToolApprovalRepository = new InMemoryToolApprovalRepository(this.turns);

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

  async renameChat(chatId: string, title: string, currentTitle?: string): Promise<boolean> {
    const chat = this.#chats.get(chatId);
    if (!chat || (currentTitle !== undefined && chat.title !== currentTitle)) return false;
    chat.title = title;
    return true;
  }

  async deleteChat(chatId: string): Promise<boolean> {
    this.#messages.delete(chatId);
    this.approvals.deleteChatApprovals(chatId);
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

  /** Marks the chat's messages from `fromSeq` on as replaced by `turnId` (the turn repository's rewind). */
  discardMessages(chatId: string, fromSeq: number, turnId: string): void {
    for (const message of this.#messages.get(chatId) ?? []) {
      if (message.seq >= fromSeq && message.discardedBy === undefined) message.discardedBy = turnId;
    }
  }
}
