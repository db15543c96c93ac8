/**
 * The chat application service (docs/chats.md): create, list, get and delete a user's chats, and run
 * one turn at a time per chat. Every dependency is injected (repository, provider factory, tool runtime
 * loader, ledger factory, clock), so the HTTP layer and the CLI share it and tests use scripted providers.
 *
 * Guarantees:
 * - Per-user isolation: another user's chat is `not_found`, never `forbidden`.
 * - A chat's working directory lies inside one of its owner's workspaces (`src/workspaces/`; omitted,
 *   the personal workspace), checked at creation, again before every turn and before every tool call,
 *   so a revoked grant applies at the next call. A chat is confined to its working directory unless it
 *   asked otherwise and its owner is allowed unrestricted chats, checked each time as well.
 * - Every completed conversation item is persisted as the turn produces it; history is repaired
 *   before replay (`history-repair.ts`), so a crash mid-turn never poisons the next turn.
 * - One turn at a time per chat, and at most `userTurnLimit` per user, here and across instances sharing
 *   the database; a turn runs until it ends or is explicitly cancelled, whatever its clients do, and any
 *   client can follow it from any instance (`turn-coordinator.ts`; leases and replay: docs/turns.md).
 */
import {
  answerToolApproval,
  type ToolApprovalAnswerBody,
  type ToolApprovalAnswerResult,
} from '../approvals/answer-tool-approval.ts';
import type { PendingToolApproval, RememberedApprovalRule } from '../approvals/tool-approval-gate.ts';
import { toPendingApproval } from '../approvals/tool-approval-repository.ts';
import { PROVIDER_IDS, type ProviderId } from '../contracts/provider-id.ts';
import type { ModelLoopLimits } from '../model-loop/model-loop.ts';
import type { ModelProvider } from '../providers/model-provider.ts';
import type { EnabledToolRuntime } from '../settings/tool-runtime.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { ExecuteToolOptions, ToolTimers } from '../tools/execution.ts';
import type { FreshnessLedger } from '../tools/freshness-ledger.ts';
import { defaultToolRegistry } from '../tools/registry.ts';
import { type CancelTurnOutcome, TurnCoordinator } from '../turns/turn-coordinator.ts';
import type { TurnFollower } from '../turns/turn-follower.ts';
import type { TurnRecord } from '../turns/turn-repository.ts';
import type { TurnTimers } from '../turns/turn-timers.ts';
import { type TurnTiming, turnTimingFor } from '../turns/turn-timing.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import { toolAccessContext } from '../workspaces/tool-access.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import type { BoundAccess, WorkspaceService } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import { ChatOrganizer } from './chat-organizer.ts';
import type { Chat, ChatListFilter, ChatMessage, ChatRepository, NewChat } from './chat-repository.ts';
import { DEFAULT_CHAT_TITLE, titleProblem } from './chat-title.ts';
import {
  type ChatView,
  chatNotFound,
  chatPresenter,
  requireUserChat,
  summarizeTurn,
  type TurnSummary,
} from './chat-views.ts';
import { prepareChatTurn } from './prepare-chat-turn.ts';
import { invalid, requireStorable } from './storable-text.ts';

export { DEFAULT_CHAT_TITLE, MAX_TITLE_LENGTH } from './chat-title.ts';
export type { ChatView, TurnSummary } from './chat-views.ts';
export { isStorableText } from './storable-text.ts';
export const MAX_MODEL_LENGTH = 200;
export const MAX_SYSTEM_PROMPT_LENGTH = 50_000;
export const MAX_MESSAGE_LENGTH = 1_000_000;

export interface ChatServiceDependencies {
  repository: ChatRepository;
  /** Builds the provider of a chat; throws when it is not configured (no key). */
  createProvider: (providerId: ProviderId) => ModelProvider;
  /** The user's enabled tools and saved settings, e.g. `getEnabledToolRuntime(repository, userId)`. */
  loadToolRuntime: (userId: string, reachable: ReachableSet) => Promise<EnabledToolRuntime>;
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
  limits?: ModelLoopLimits;
  executeOptions?: ExecuteToolOptions;
  /** Lease length and polling intervals of turns (default: a 30 s lease). */
  turnTiming?: TurnTiming;
  /** What turns' renewals, polls and retries wait on (tests drive them by hand; default: real). */
  turnTimers?: TurnTimers;
  /** How answers, cancels and events reach their waiters on any instance (default: this process only). */
  wakeUps?: WakeUpSource;
  /** Most turns one user runs at once, in any chat or instance (`MANGO_USER_MAX_TURNS`); absent: none. */
  userTurnLimit?: number;
  /** Where a turn that stops for a lost lease or a failing database says so (default: stderr). */
  log?: (line: string) => void;
  /**
   * Adds a rule the user remembered while approving to their saved settings of the tool (the settings
   * service on the server). Absent: asking to remember is refused.
   */
  rememberApprovalRule?: (userId: string, toolName: string, rule: RememberedApprovalRule) => Promise<void>;
  /** The approval timeout's timer (tests fire it without waiting). */
  approvalTimers?: ToolTimers;
  /**
   * True for a failure that says the database cannot be reached right now (the server passes its
   * driver-code check). A turn retries such a failure of the access check before a call while its
   * lease holds, instead of failing the call. Default: none is.
   */
  isDatabaseUnavailable?: (error: unknown) => boolean;
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

/** The current turn as the API shows it: the record without its holder, and what waits for approval. */
export type CurrentTurn = Omit<TurnRecord, 'holder'> & { pendingApprovals: PendingToolApproval[] };

export interface ChatWithMessages {
  chat: ChatView;
  messages: ChatMessage[];
  /** The chat's turns, oldest first: usage, durations, error and trace of each (`turn-trace.ts`). */
  turns: TurnSummary[];
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
  readonly #turns: TurnCoordinator;
  readonly #timing: TurnTiming;
  /** Listing, renaming, pinning, archiving, searching and exporting a user's chats. */
  readonly organizer: ChatOrganizer;

  constructor(dependencies: ChatServiceDependencies) {
    this.#dependencies = dependencies;
    this.#now = dependencies.now ?? Date.now;
    this.#timing = dependencies.turnTiming ?? turnTimingFor();
    this.organizer = new ChatOrganizer({
      repository: dependencies.repository,
      workspaces: dependencies.workspaces,
      now: this.#now,
    });
    this.#turns = new TurnCoordinator({
      wakeUps: dependencies.wakeUps,
      store: dependencies.repository.turns,
      timing: this.#timing,
      now: this.#now,
      log: dependencies.log ?? ((line) => console.error(line)),
      ...(dependencies.turnTimers === undefined ? {} : { timers: dependencies.turnTimers }),
      userTurnLimit: dependencies.userTurnLimit,
    });
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
    requireStorable('title', title);
    const problem = titleProblem(title);
    if (problem !== undefined) throw invalid(problem);
    const systemPrompt = input.systemPrompt?.trim() || null;
    if (systemPrompt !== null && systemPrompt.length > MAX_SYSTEM_PROMPT_LENGTH) {
      throw invalid(`systemPrompt must be at most ${MAX_SYSTEM_PROMPT_LENGTH} characters.`);
    }
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
    const chat: NewChat & { workingDirectory: string } = {
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
    return { ...chat, lastActivityAt: chat.createdAt, pinnedAt: null, archivedAt: null };
  }

  /** The user's chats (default: all), pinned first, then by last activity. */
  listChats(userId: string, filter: ChatListFilter = 'all'): Promise<ChatView[]> {
    return this.organizer.list(userId, filter);
  }

  async getChat(userId: string, chatId: string): Promise<ChatWithMessages> {
    const chat = await this.#requireChat(userId, chatId);
    const present = await this.#presenter(userId);
    const { repository } = this.#dependencies;
    const [messages, turns] = await Promise.all([
      repository.listMessages(chatId),
      repository.turns.listTurns(chatId),
    ]);
    return { chat: present(chat), messages, turns: turns.map(summarizeTurn) };
  }

  /**
   * Sets the chat's title (trimmed): one line, 1–`MAX_TITLE_LENGTH` characters, no control characters.
   * @throws ChatError `not_found` (not the user's chat), `invalid_request` (a title it cannot have).
   */
  renameChat(userId: string, chatId: string, title: string): Promise<ChatView> {
    return this.organizer.update(userId, chatId, { title });
  }

  async #presenter(userId: string): Promise<(chat: Chat) => ChatView> {
    return chatPresenter(this.#dependencies.workspaces, userId);
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
    // A turn another instance runs is stopped by its fence: its record goes with the chat.
    if (this.#turns.isRunning(chatId)) await this.#turns.cancel(chatId);
    await this.#dependencies.repository.deleteChat(chatId);
  }

  /** True when the chat runs a turn in this process. */
  isBusy(chatId: string): boolean {
    return this.#turns.isRunning(chatId);
  }

  /**
   * Cancels every running turn (server shutdown): each ends with `done{cancelled}` after its tools are
   * stopped and its history is persisted, so the server can drain instead of waiting out long turns.
   * @returns how many turns were running.
   */
  cancelAllTurns(): number {
    return this.#turns.cancelAll();
  }

  /** Waits (bounded) until the turns of this process recorded their end (shutdown, after the cancel). */
  drainTurns(timeoutMilliseconds: number): Promise<void> {
    return this.#turns.drain(timeoutMilliseconds);
  }

  /**
   * Cancels the chat's running turn, here or on another instance. `cancelled: false` comes with the
   * reason: no turn runs, or the instance that ran it is gone (the chat is then free again).
   */
  async cancelTurn(userId: string, chatId: string): Promise<CancelTurnOutcome> {
    await this.#requireChat(userId, chatId);
    return this.#turns.cancel(chatId);
  }

  /**
   * The chat's current (newest) turn record without its holder (running or how it ended, usage, durations).
   * @throws ChatError `not_found` when the chat is not the user's or never ran a turn.
   */
  async currentTurn(userId: string, chatId: string): Promise<CurrentTurn> {
    await this.#requireChat(userId, chatId);
    const record = await this.#turns.current(chatId);
    if (!record) throw new ChatError('not_found', `Chat ${chatId} has not run a turn yet.`);
    // Which process holds the lease (boot id, pid) is the server's business, not the user's.
    const { holder: _holder, ...visible } = record;
    // Only a running turn can still act on an answer; an ended one's leftover rows are not questions.
    const waiting =
      record.state === 'running' ? await this.#dependencies.repository.approvals.listWaiting(record.id) : [];
    return { ...visible, pendingApprovals: waiting.map(toPendingApproval) };
  }

  /**
   * Answers a call of the chat's current turn that waits for approval, on any instance.
   * @throws ChatError `not_found` (not the user's chat, or no such question), `approval_closed` (no
   * longer waiting, or its turn ended), `invalid_request` (a remember that cannot apply).
   */
  async answerApproval(
    userId: string,
    chatId: string,
    callId: string,
    body: ToolApprovalAnswerBody,
  ): Promise<ToolApprovalAnswerResult> {
    await this.#requireChat(userId, chatId);
    const dependencies = this.#dependencies;
    return answerToolApproval({
      store: dependencies.repository.approvals,
      registry: dependencies.executeOptions?.registry ?? defaultToolRegistry,
      wakeups: this.#turns.wakeUps,
      userId,
      chatId,
      callId,
      body,
      now: this.#now,
      ...(dependencies.rememberApprovalRule ? { remember: dependencies.rememberApprovalRule } : {}),
    });
  }

  /**
   * Follows the chat's current (newest) turn: its events after `afterSeq`, then live until its `done`.
   * @throws ChatError `not_found` when the chat is not the user's or never ran a turn.
   */
  async followTurn(userId: string, chatId: string, afterSeq: number): Promise<TurnFollower> {
    await this.#requireChat(userId, chatId);
    const follower = await this.#turns.follow(chatId, afterSeq);
    if (!follower) throw new ChatError('not_found', `Chat ${chatId} has not run a turn yet.`);
    return follower;
  }

  /**
   * Starts a turn and returns a follower of its events from the first. Fails before any event with
   * `not_found`, `busy`, `too_many_turns`, `invalid_request` (empty message), `provider_unavailable` or
   * `turn_not_started` (the message could not be committed under the turn's lease). Resolves only once
   * the turn record and the user's message are committed. The turn runs to its end whether or not the
   * follower is read; only `cancelTurn` stops it.
   */
  async startTurn(userId: string, chatId: string, message: string): Promise<TurnFollower> {
    if (message.trim() === '') throw invalid('message must not be empty.');
    if (message.length > MAX_MESSAGE_LENGTH) {
      throw invalid(`message must be at most ${MAX_MESSAGE_LENGTH} characters.`);
    }
    const chat = await this.#requireChat(userId, chatId);
    // Claimed first, checked after: two concurrent starts cannot both pass the claim while one awaits
    // the filesystem, and a refused binding ends the claimed turn as an error.
    return this.#turns.start(
      chatId,
      async (run) =>
        prepareChatTurn({
          dependencies: this.#dependencies,
          chat,
          access: await this.#accessOf(chat),
          accessForCall: async () => {
            const unavailable = this.#dependencies.isDatabaseUnavailable ?? (() => false);
            const access = await run.retriedRead(() => this.#accessOf(chat), unavailable);
            return toolAccessContext(access.reachable);
          },
          message,
          run,
          now: this.#now,
          pollMilliseconds: this.#timing.cancelPollMilliseconds,
          wakeups: this.#turns.wakeUps,
        }),
      {
        exists: async () => (await this.#dependencies.repository.getChat(chatId)) !== undefined,
        notFound: () => this.#notFound(chatId),
      },
    );
  }

  #requireChat(userId: string, chatId: string): Promise<Chat> {
    return requireUserChat(this.#dependencies.repository, userId, chatId);
  }

  #notFound(chatId: string): ChatError {
    return chatNotFound(chatId);
  }
}
