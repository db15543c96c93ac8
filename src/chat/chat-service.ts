/**
 * The chat application service (issue 7, "Chat API"): create, list, get and delete a user's chats,
 * and run one turn at a time per chat. Every dependency is injected (repository, provider factory,
 * tool runtime loader, ledger factory, clock), so the HTTP layer and the CLI share it and tests drive it
 * with scripted providers.
 *
 * Guarantees:
 * - Per-user isolation: another user's chat is `not_found`, never `forbidden`.
 * - A chat's working directory lies inside one of its owner's workspaces (`src/workspaces/`; omitted,
 *   the personal workspace), checked at creation, again before every turn and before every tool call,
 *   so a revoked grant applies at the next call. A chat is confined to its working directory unless it
 *   asked otherwise and its owner is allowed unrestricted chats, checked each time as well.
 * - Every completed conversation item is persisted as the turn produces it; history is repaired
 *   before replay (`history-repair.ts`), so a crash mid-turn never poisons the next turn.
 * - One turn at a time per chat: a second `startTurn` fails with `busy` until the first one's event
 *   stream ends (or is returned before being read) — in this process by its own bookkeeping, across
 *   instances sharing a database by the repository's turn lease (renewed while the turn runs, expiring
 *   `TURN_LEASE_MILLISECONDS` after an instance dies; `turn-lease.ts`).
 */
import { type ModelProvider, PROVIDER_IDS, type ProviderId } from '../providers/types.ts';
import type { EnabledToolRuntime } from '../settings/tool-runtime.ts';
import type { ExecuteToolOptions } from '../tools/execution.ts';
import type { FreshnessLedger } from '../tools/freshness-ledger.ts';
import { toolAccessContext } from '../workspaces/tool-access.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import type { BoundAccess, WorkspaceService } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import type { Chat, ChatMessage, ChatRepository } from './chat-repository.ts';
import { repairHistory } from './history-repair.ts';
import { buildSystemPrompt } from './system-prompt.ts';
import { runTurn, type TurnLimits } from './turn.ts';
import type { TurnEvent } from './turn-events.ts';
import { acquireTurnLease, BUSY_MESSAGE, type TurnLease } from './turn-lease.ts';

export const MAX_TITLE_LENGTH = 200;
export const MAX_MODEL_LENGTH = 200;
export const MAX_SYSTEM_PROMPT_LENGTH = 50_000;
export const MAX_MESSAGE_LENGTH = 1_000_000;
export const DEFAULT_CHAT_TITLE = 'New chat';

export interface ChatServiceDependencies {
  repository: ChatRepository;
  /** Builds the provider of a chat; throws when it is not configured (no key). */
  createProvider: (providerId: ProviderId) => ModelProvider;
  /** The user's enabled tools and saved settings, e.g. `getEnabledToolRuntime(repository, userId)`. */
  loadToolRuntime: (userId: string) => Promise<EnabledToolRuntime>;
  /** The chat's freshness ledger (database-backed on the server). */
  createLedger: (chatId: string) => FreshnessLedger;
  /** The users' workspaces: where a chat may work and what its tools reach. */
  workspaces: WorkspaceService;
  /** Clock in epoch milliseconds. */
  now?: () => number;
  createId?: () => string;
  /** Where tools store generated files. */
  dataDirectory?: string;
  /** `maxIterations` comes from `MANGO_MAX_TOOL_ITERATIONS`. */
  limits?: TurnLimits;
  executeOptions?: ExecuteToolOptions;
}

export interface CreateChatInput {
  title?: string;
  provider: string;
  model: string;
  /** Absolute, `~` or `~/…`, inside one of the user's workspaces; omitted = the personal workspace. */
  workingDirectory?: string;
  /** True: reach all of the user's workspaces, not only the working directory (the user must be allowed it). */
  unrestricted?: boolean;
  systemPrompt?: string;
}

/** A chat as the service reports it: its working directory's real path and whether it is confined now. */
export type ChatView = Chat & { workingDirectory: string };

export interface ChatWithMessages {
  chat: ChatView;
  messages: ChatMessage[];
}

export interface StartTurnOptions {
  /** The client's disconnect; `cancelTurn` works as well. */
  signal?: AbortSignal;
}

interface ActiveTurn {
  controller: AbortController;
}

function invalid(message: string): ChatError {
  return new ChatError('invalid_request', message);
}

/**
 * True for text every database stores as sent: well-formed UTF-16 (no lone surrogate, which UTF-8
 * cannot encode) and no NUL (PostgreSQL `text` refuses it). Chat fields and ids are checked with it so
 * such input is a 4xx, not a driver error.
 */
export function isStorableText(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

function requireStorable(field: string, value: string | null): void {
  if (value !== null && !isStorableText(value)) {
    throw invalid(`${field} must be valid Unicode text without NUL characters.`);
  }
}

/** A workspace refusal as the chat API reports it. */
function toChatError(error: unknown): unknown {
  if (!WorkspaceError.isInstance(error)) return error;
  const code = error.code === 'unrestricted_not_allowed' ? 'invalid_request' : 'invalid_working_directory';
  return new ChatError(code, error.message);
}

function isProviderId(value: string): value is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(value);
}

export class ChatService {
  readonly #dependencies: ChatServiceDependencies;
  readonly #now: () => number;
  readonly #activeTurns = new Map<string, ActiveTurn>();

  constructor(dependencies: ChatServiceDependencies) {
    this.#dependencies = dependencies;
    this.#now = dependencies.now ?? Date.now;
  }

  async createChat(userId: string, input: CreateChatInput): Promise<ChatView> {
    if (!isProviderId(input.provider)) {
      throw invalid(`Unknown provider "${input.provider}". Use one of: ${PROVIDER_IDS.join(', ')}.`);
    }
    const model = input.model.trim();
    if (model === '' || model.length > MAX_MODEL_LENGTH) {
      throw invalid(`model must be 1–${MAX_MODEL_LENGTH} characters.`);
    }
    const title = input.title?.trim() || DEFAULT_CHAT_TITLE;
    if (title.length > MAX_TITLE_LENGTH)
      throw invalid(`title must be at most ${MAX_TITLE_LENGTH} characters.`);
    const systemPrompt = input.systemPrompt?.trim() || null;
    if (systemPrompt !== null && systemPrompt.length > MAX_SYSTEM_PROMPT_LENGTH) {
      throw invalid(`systemPrompt must be at most ${MAX_SYSTEM_PROMPT_LENGTH} characters.`);
    }
    requireStorable('title', title);
    requireStorable('model', model);
    requireStorable('systemPrompt', systemPrompt);
    const { workspaces } = this.#dependencies;
    let workingDirectory: string;
    try {
      await workspaces.checkUnrestricted(userId, input.unrestricted === true);
      workingDirectory = await workspaces.resolveWorkingDirectory(userId, input.workingDirectory);
    } catch (error) {
      throw toChatError(error);
    }
    const chat: ChatView = {
      id: this.#dependencies.createId?.() ?? crypto.randomUUID(),
      userId,
      title,
      workingDirectory,
      confined: input.unrestricted !== true,
      provider: input.provider,
      model,
      systemPrompt,
      createdAt: new Date(this.#now()).toISOString(),
    };
    await this.#dependencies.repository.createChat(chat);
    return chat;
  }

  async listChats(userId: string): Promise<ChatView[]> {
    const chats = await this.#dependencies.repository.listChats(userId);
    const present = await this.#presenter(userId);
    return chats.map(present);
  }

  async getChat(userId: string, chatId: string): Promise<ChatWithMessages> {
    const chat = await this.#requireChat(userId, chatId);
    const present = await this.#presenter(userId);
    return { chat: present(chat), messages: await this.#dependencies.repository.listMessages(chatId) };
  }

  /** Reports a chat as it applies now: its working directory's path, whether it is confined. */
  async #presenter(userId: string): Promise<(chat: Chat) => ChatView> {
    const { workspaces } = this.#dependencies;
    const [personal, allowed] = await Promise.all([
      workspaces.personalWorkspace(userId),
      workspaces.isUnrestrictedAllowed(userId),
    ]);
    return (chat) => ({
      ...chat,
      workingDirectory: chat.workingDirectory ?? personal,
      confined: chat.confined || !allowed,
    });
  }

  /** The chat's access now (binding checked again). @throws ChatError `invalid_working_directory`. */
  async #accessOf(chat: Chat): Promise<BoundAccess> {
    try {
      return await this.#dependencies.workspaces.reachableSetFor(chat.userId, {
        workingDirectory: chat.workingDirectory,
        confined: chat.confined,
      });
    } catch (error) {
      throw toChatError(error);
    }
  }

  /** Cancels a running turn of the chat, then deletes the chat and its messages. */
  async deleteChat(userId: string, chatId: string): Promise<void> {
    await this.#requireChat(userId, chatId);
    this.#activeTurns.get(chatId)?.controller.abort();
    await this.#dependencies.repository.deleteChat(chatId);
  }

  /** True when the chat runs a turn in this process. */
  isBusy(chatId: string): boolean {
    return this.#activeTurns.has(chatId);
  }

  /**
   * Cancels every running turn (server shutdown): each ends with `done{cancelled}` after its tools are
   * stopped and its history is persisted, so the server can drain instead of waiting out long turns.
   * @returns how many turns were running.
   */
  cancelAllTurns(): number {
    for (const active of this.#activeTurns.values()) active.controller.abort();
    return this.#activeTurns.size;
  }

  /**
   * Cancels the chat's running turn; false when none runs. A turn another instance runs (it holds the
   * lease) is asked to stop through the repository (`turn-lease.ts`) and stops within a poll interval.
   */
  async cancelTurn(userId: string, chatId: string): Promise<boolean> {
    await this.#requireChat(userId, chatId);
    const active = this.#activeTurns.get(chatId);
    if (active) {
      active.controller.abort();
      return true;
    }
    const repository = this.#dependencies.repository;
    if (!repository.requestTurnCancel) return false;
    return repository.requestTurnCancel(chatId, new Date(this.#now()).toISOString());
  }

  /**
   * Starts a turn and returns its event stream. Fails before any event with `not_found`, `busy`,
   * `invalid_request` (empty message) or `provider_unavailable`. The caller must read the stream to
   * its end or call `return()` on it; either releases the chat.
   */
  async startTurn(
    userId: string,
    chatId: string,
    message: string,
    options: StartTurnOptions = {},
  ): Promise<AsyncIterableIterator<TurnEvent>> {
    if (message.trim() === '') throw invalid('message must not be empty.');
    if (message.length > MAX_MESSAGE_LENGTH) {
      throw invalid(`message must be at most ${MAX_MESSAGE_LENGTH} characters.`);
    }
    const chat = await this.#requireChat(userId, chatId);
    const access = await this.#accessOf(chat);
    // Check and claim with no await in between: two concurrent requests cannot both pass.
    if (this.#activeTurns.has(chatId)) throw new ChatError('busy', BUSY_MESSAGE);
    const active: ActiveTurn = { controller: new AbortController() };
    this.#activeTurns.set(chatId, active);
    let lease: TurnLease | undefined;
    const release = async () => {
      if (this.#activeTurns.get(chatId) === active) this.#activeTurns.delete(chatId);
      await lease?.release();
    };
    let events: AsyncGenerator<TurnEvent, void>;
    try {
      // Other instances sharing the database: their turns hold a lease.
      lease = await acquireTurnLease({
        repository: this.#dependencies.repository,
        chatId,
        owner: crypto.randomUUID(),
        now: this.#now,
        onCancelRequested: () => active.controller.abort(),
        notFound: () => this.#notFound(chatId),
      });
      events = await this.#prepareTurn(chat, access, message, active, options.signal);
    } catch (error) {
      await release();
      throw error;
    }
    return this.#releasingStream(events, active, release);
  }

  async #prepareTurn(
    chat: Chat,
    access: BoundAccess,
    message: string,
    active: ActiveTurn,
    clientSignal: AbortSignal | undefined,
  ): Promise<AsyncGenerator<TurnEvent, void>> {
    const dependencies = this.#dependencies;
    let provider: ModelProvider;
    try {
      provider = dependencies.createProvider(chat.provider);
    } catch (error) {
      throw new ChatError(
        'provider_unavailable',
        `Provider "${chat.provider}" is not available: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const [tools, messages] = await Promise.all([
      dependencies.loadToolRuntime(chat.userId),
      dependencies.repository.listMessages(chat.id),
    ]);
    const signal = clientSignal
      ? AbortSignal.any([clientSignal, active.controller.signal])
      : active.controller.signal;
    return runTurn({
      provider,
      model: chat.model,
      systemPrompt: buildSystemPrompt({
        reachable: access.reachable,
        confined: access.confined,
        chatSystemPrompt: chat.systemPrompt ?? undefined,
      }),
      history: repairHistory(messages.map((row) => row.item)),
      userText: message,
      tools,
      toolContext: {
        userId: chat.userId,
        chatId: chat.id,
        ...toolAccessContext(access.reachable),
        ledger: dependencies.createLedger(chat.id),
        dataDirectory: dependencies.dataDirectory,
      },
      accessForCall: async () => {
        const now = await this.#accessOf(chat);
        return toolAccessContext(now.reachable);
      },
      signal,
      now: this.#now,
      limits: dependencies.limits,
      onItem: async (item) => {
        await dependencies.repository.appendMessage(chat.id, item, new Date(this.#now()).toISOString());
      },
      executeOptions: dependencies.executeOptions,
    });
  }

  /**
   * Wraps the turn so the chat is released when it ends, even if it is returned before being read.
   * `return()` cancels the turn first: an async generator queues `return()` behind a pending `next()`,
   * so without the abort a client that leaves mid-tool would wait for the tool's budget.
   */
  #releasingStream(
    events: AsyncGenerator<TurnEvent, void>,
    active: ActiveTurn,
    release: () => Promise<void>,
  ): AsyncIterableIterator<TurnEvent> {
    let started = false;
    const inner = (async function* () {
      try {
        yield* events;
      } finally {
        // Before the stream closes: a client that starts the next turn at once finds the chat free.
        await release();
      }
    })();
    return {
      next: () => {
        started = true;
        return inner.next();
      },
      return: async () => {
        active.controller.abort();
        if (!started) {
          await release();
          await events.return();
        }
        return inner.return();
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
  }

  async #requireChat(userId: string, chatId: string): Promise<Chat> {
    // An id no chat can have (NUL, lone surrogate) is not sent to the database, whose driver refuses it.
    const chat = isStorableText(chatId) ? await this.#dependencies.repository.getChat(chatId) : undefined;
    if (!chat || chat.userId !== userId) throw this.#notFound(chatId);
    return chat;
  }

  #notFound(chatId: string): ChatError {
    return new ChatError('not_found', `No chat with id ${chatId}.`);
  }
}
