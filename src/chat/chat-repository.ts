/**
 * Where chats and their messages live (the `chats` and `messages` tables; see docs/chats.md). One message row
 * per `ConversationItem`, ordered by `seq` within its chat. This module holds the contract;
 * `in-memory-chat-repository.ts` and `src/db/` implement it.
 */
import type { ToolApprovalRepository } from '../approvals/tool-approval-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import type { TurnRepository } from '../turns/turn-repository.ts';
import type { ChatMessage } from './chat-message.ts';

export interface Chat {
  id: string;
  userId: string;
  title: string;
  /**
   * Real absolute path of the working directory, inside one of the owner's workspaces. Stored null
   * (chats from before workspaces) means the owner's personal workspace; the service reports the path.
   */
  workingDirectory: string | null;
  /**
   * True: the chat's tools reach only `workingDirectory`. False: the chat asked to reach all of its
   * owner's workspaces, which applies only while the owner is allowed unrestricted chats (the service
   * reports the effective value).
   */
  confined: boolean;
  provider: ProviderId;
  model: string;
  /** The chat's own instructions, appended to the server's system prompt. */
  systemPrompt: string | null;
  /** ISO 8601. */
  createdAt: string;
}

export { type ChatMessage, getMessageRole, type MessageRole } from './chat-message.ts';

export interface ChatRepository {
  createChat(chat: Chat): Promise<void>;
  getChat(chatId: string): Promise<Chat | undefined>;
  /** The user's chats, newest first. */
  listChats(userId: string): Promise<Chat[]>;
  /**
   * Sets the chat's title; false when there was no such chat, or when `currentTitle` is given and the
   * title is no longer that (so a derived title never replaces one the user just chose).
   */
  renameChat(chatId: string, title: string, currentTitle?: string): Promise<boolean>;
  /** Deletes the chat and its messages; false when there was no such chat. */
  deleteChat(chatId: string): Promise<boolean>;
  /** Appends one item with the next `seq`; rejects when the chat does not exist (e.g. deleted mid-turn). */
  appendMessage(chatId: string, item: ConversationItem, createdAt: string): Promise<ChatMessage>;
  /** Every message of the chat in `seq` order, without those a rerun replaced. */
  listMessages(chatId: string): Promise<ChatMessage[]>;
  /** Every message of the chat in `seq` order, those a rerun replaced included (with `discardedBy`). */
  listMessageHistory(chatId: string): Promise<ChatMessage[]>;
  /** Sets the model the chat's next turns use; false when there was no such chat. */
  changeModel(chatId: string, model: string): Promise<boolean>;
  /** The chat's turn records and their events (leases, fencing, replay). */
  readonly turns: TurnRepository;
  /** The approval questions of the chat's turns. */
  readonly approvals: ToolApprovalRepository;
}
