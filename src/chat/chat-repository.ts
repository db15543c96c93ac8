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
  /** ISO 8601: the newest of its creation and its messages (every turn moves it). */
  lastActivityAt: string;
  /** ISO 8601 when pinned (pinned chats list first); null when not. */
  pinnedAt: string | null;
  /** ISO 8601 when archived (listed apart; a new user message brings it back); null when not. */
  archivedAt: string | null;
}

/** A chat as it is created: activity starts at its creation, neither pinned nor archived. */
export type NewChat = Omit<Chat, 'lastActivityAt' | 'pinnedAt' | 'archivedAt'>;

/** Which of a user's chats `listChats` returns. */
export type ChatListFilter = 'active' | 'archived' | 'all';

/** What `setChatFlags` changes; an absent flag stays as it is. */
export interface ChatFlagChange {
  pinned?: boolean;
  archived?: boolean;
}

export { type ChatMessage, getMessageRole, type MessageRole } from './chat-message.ts';

/** A validated search: its terms, and which page of the results. */
export interface ChatSearchRequest {
  terms: readonly string[];
  limit: number;
  offset: number;
}

/** The newest message of a chat that matched, as the repository found it. */
export interface ChatSearchMessage {
  id: string;
  seq: number;
  role: 'user' | 'assistant';
  /** The indexed text (a message's first 100 000 characters). */
  text: string;
}

/** One chat that matched: how many of its entries did, whether its title did, its newest message that did. */
export interface ChatSearchHit {
  chat: Chat;
  matches: number;
  titleMatched: boolean;
  message: ChatSearchMessage | null;
}

/** A page of hits, chats ordered as `listChats` orders them (pinned first, then by last activity). */
export interface ChatSearchPage {
  hits: ChatSearchHit[];
  hasMore: boolean;
}

export interface ChatRepository {
  createChat(chat: NewChat): Promise<void>;
  getChat(chatId: string): Promise<Chat | undefined>;
  /**
   * The user's chats (default `all`): pinned ones first, then by last activity, newest first; chats
   * active in the same millisecond in the order they were active.
   */
  listChats(userId: string, filter?: ChatListFilter): Promise<Chat[]>;
  /**
   * Pins, unpins, archives or unarchives (stamped `now`; archiving also unpins); undefined when there is
   * no such chat. Setting a flag that is already set keeps its first stamp.
   */
  setChatFlags(chatId: string, change: ChatFlagChange, now: string): Promise<Chat | undefined>;
  /** Full-text search over the user's chats' titles and text messages (`chat-search.ts`). */
  searchChats(userId: string, request: ChatSearchRequest): Promise<ChatSearchPage>;
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
  /** Sets (null: removes) the chat's own system prompt for its next turns; false when there was no such chat. */
  changeSystemPrompt(chatId: string, systemPrompt: string | null): Promise<boolean>;
  /** The chat's turn records and their events (leases, fencing, replay). */
  readonly turns: TurnRepository;
  /** The approval questions of the chat's turns. */
  readonly approvals: ToolApprovalRepository;
}
