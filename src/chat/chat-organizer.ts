/**
 * Finding and keeping a user's chats (docs/chats.md, "Finding and keeping chats"): the list in order of
 * activity, renaming, pinning and archiving, full-text search with highlighted snippets, and the export
 * of one chat. Every method reads and changes only the caller's own chats: another user's chat is
 * `not_found`, and a search joins the index to the caller's chats before anything is returned.
 */
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import type { ChatListFilter, ChatMessage, ChatRepository } from './chat-repository.ts';
import type { ChatSearchRequest } from './chat-search.ts';
import { titleProblem } from './chat-title.ts';
import {
  type ChatView,
  chatNotFound,
  chatPresenter,
  requireUserChat,
  summarizeTurn,
  type TurnSummary,
} from './chat-views.ts';
import { highlightParts, type SnippetPart, searchSnippet } from './search-snippet.ts';
import { invalid, requireStorable } from './storable-text.ts';

export interface ChatOrganizerDependencies {
  repository: ChatRepository;
  workspaces: WorkspaceService;
  /** Clock in epoch milliseconds (the stamps of pinning and archiving). */
  now: () => number;
}

/** What `PATCH /api/chats/:id` may change; at least one field. */
export interface ChatUpdate {
  title?: string;
  pinned?: boolean;
  archived?: boolean;
}

export interface ChatSearchResult {
  chat: ChatView;
  /** How many of the chat's entries (its title, its text messages) matched. */
  matches: number;
  /** The whole title, the matching words marked. */
  title: SnippetPart[];
  /** The chat's newest matching message with an excerpt around its first match; null when only the title matched. */
  message: { id: string; seq: number; role: 'user' | 'assistant'; snippet: SnippetPart[] } | null;
}

export interface ChatSearchResults {
  results: ChatSearchResult[];
  /** The `offset` of the next page; null on the last. */
  nextOffset: number | null;
}

export interface ChatUsageTotal {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
}

/** One chat as `GET /api/chats/:id/export?format=json` writes it. */
export interface ChatExport {
  format: 'mango-chat';
  version: 1;
  exportedAt: string;
  chat: ChatView;
  /** Every message in order: user and assistant text, tool calls (arguments) and results (output). */
  messages: ChatMessage[];
  /** Each turn's state, usage, durations and error. */
  turns: TurnSummary[];
  /** The sum of the turns' usage. */
  usage: ChatUsageTotal;
}

function usageNumber(usage: unknown, key: keyof ChatUsageTotal): number {
  if (typeof usage !== 'object' || usage === null) return 0;
  const value = (usage as Record<string, unknown>)[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function totalTurnUsage(turns: readonly TurnSummary[]): ChatUsageTotal {
  const total: ChatUsageTotal = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
  for (const turn of turns) {
    for (const key of ['modelCalls', 'inputTokens', 'outputTokens'] as const) {
      total[key] += usageNumber(turn.usage, key);
    }
  }
  return total;
}

export class ChatOrganizer {
  readonly #dependencies: ChatOrganizerDependencies;

  constructor(dependencies: ChatOrganizerDependencies) {
    this.#dependencies = dependencies;
  }

  async list(userId: string, filter: ChatListFilter): Promise<ChatView[]> {
    const chats = await this.#dependencies.repository.listChats(userId, filter);
    const present = await chatPresenter(this.#dependencies.workspaces, userId);
    return chats.map(present);
  }

  /**
   * Renames, pins or archives the chat (archiving also unpins it). The title is trimmed: one line,
   * 1–200 characters, no control characters.
   * @throws ChatError `not_found` (not the user's chat), `invalid_request` (no field, or a bad title).
   */
  async update(userId: string, chatId: string, update: ChatUpdate): Promise<ChatView> {
    const { repository } = this.#dependencies;
    if (update.title === undefined && update.pinned === undefined && update.archived === undefined) {
      throw invalid('The body must set at least one of title, pinned or archived; got none.');
    }
    await requireUserChat(repository, userId, chatId);
    if (update.title !== undefined) {
      const trimmed = update.title.trim();
      requireStorable('title', trimmed);
      const problem = titleProblem(trimmed);
      if (problem !== undefined) throw invalid(problem);
      // Deleted between the check and the update: the same answer as for a chat that never existed.
      if (!(await repository.renameChat(chatId, trimmed))) throw chatNotFound(chatId);
    }
    let chat = await repository.getChat(chatId);
    if (update.pinned !== undefined || update.archived !== undefined) {
      const now = new Date(this.#dependencies.now()).toISOString();
      chat = await repository.setChatFlags(
        chatId,
        {
          ...(update.pinned === undefined ? {} : { pinned: update.pinned }),
          ...(update.archived === undefined ? {} : { archived: update.archived }),
        },
        now,
      );
    }
    if (!chat) throw chatNotFound(chatId);
    const present = await chatPresenter(this.#dependencies.workspaces, userId);
    return present(chat);
  }

  async search(userId: string, request: ChatSearchRequest): Promise<ChatSearchResults> {
    const page = await this.#dependencies.repository.searchChats(userId, request);
    const present = await chatPresenter(this.#dependencies.workspaces, userId);
    return {
      results: page.hits.map((hit) => ({
        chat: present(hit.chat),
        matches: hit.matches,
        title: highlightParts(hit.chat.title, request.terms),
        message: hit.message
          ? {
              id: hit.message.id,
              seq: hit.message.seq,
              role: hit.message.role,
              snippet: searchSnippet(hit.message.text, request.terms),
            }
          : null,
      })),
      nextOffset: page.hasMore ? request.offset + request.limit : null,
    };
  }

  /** The chat, every message, its turns and their usage. @throws ChatError `not_found`. */
  async export(userId: string, chatId: string): Promise<ChatExport> {
    const { repository } = this.#dependencies;
    const chat = await requireUserChat(repository, userId, chatId);
    const [messages, records, present] = await Promise.all([
      repository.listMessages(chatId),
      repository.turns.listTurns(chatId),
      chatPresenter(this.#dependencies.workspaces, userId),
    ]);
    const turns = records.map(summarizeTurn);
    return {
      format: 'mango-chat',
      version: 1,
      exportedAt: new Date(this.#dependencies.now()).toISOString(),
      chat: present(chat),
      messages,
      turns,
      usage: totalTurnUsage(turns),
    };
  }
}
