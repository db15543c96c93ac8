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
import { toPendingApproval } from '../approvals/tool-approval-repository.ts';
import type { MessageAttachment } from '../contracts/conversation-item.ts';
import { PROVIDER_IDS, type ProviderId } from '../contracts/provider-id.ts';
import { defaultToolRegistry } from '../tools/registry.ts';
import { type CancelTurnOutcome, TurnCoordinator } from '../turns/turn-coordinator.ts';
import type { TurnFollower } from '../turns/turn-follower.ts';
import { type TurnTiming, turnTimingFor } from '../turns/turn-timing.ts';
import { toolAccessContext } from '../workspaces/tool-access.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import type { BoundAccess } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import { checkMessage, checkModel, checkSystemPrompt, checkTitle } from './chat-limits.ts';
import { ChatOrganizer, type ChatUpdate } from './chat-organizer.ts';
import type { Chat, ChatListFilter, NewChat } from './chat-repository.ts';
import type { ChatServiceDependencies } from './chat-service-dependencies.ts';
import {
  type ChatSettingsUpdate,
  changeChatSettings,
  changesSettings,
  checkChatSettings,
} from './chat-settings.ts';
import { DEFAULT_CHAT_TITLE } from './chat-title.ts';
import {
  type ChatView,
  type ChatWithMessages,
  type CreateChatInput,
  type CurrentTurn,
  chatNotFound,
  chatPresenter,
  requireUserChat,
  summarizeTurn,
} from './chat-views.ts';
import { checkAttachments } from './message-attachments.ts';
import { type FindRerunPoint, prepareChatTurn } from './prepare-chat-turn.ts';
import { editedMessagePoint, lastUserMessagePoint, requireFailedTurn } from './rerun-points.ts';
import { invalid, isStorableText } from './storable-text.ts';

export { MAX_MESSAGE_LENGTH, MAX_MODEL_LENGTH, MAX_SYSTEM_PROMPT_LENGTH } from './chat-limits.ts';
export type { ChatServiceDependencies } from './chat-service-dependencies.ts';
export { DEFAULT_CHAT_TITLE, MAX_TITLE_LENGTH } from './chat-title.ts';
export type { ChatView, ChatWithMessages, CreateChatInput, CurrentTurn, TurnSummary } from './chat-views.ts';
export { isStorableText } from './storable-text.ts';

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
    const model = checkModel(input.model);
    const title = checkTitle(input.title?.trim() || DEFAULT_CHAT_TITLE);
    const systemPrompt = checkSystemPrompt(input.systemPrompt);
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

  /**
   * Renames, pins, archives (the organizer's rules) and/or sets the model and the system prompt of the
   * next turns (`chat-settings.ts`); every field is checked before any is written.
   * @throws ChatError `not_found`, `invalid_request`.
   */
  async updateChat(
    userId: string,
    chatId: string,
    update: ChatUpdate & ChatSettingsUpdate,
  ): Promise<ChatView> {
    const { model, provider, systemPrompt, ...organized } = update;
    if (update.title !== undefined) checkTitle(update.title);
    const checked = checkChatSettings({ model, systemPrompt });
    const organizes = Object.values(organized).some((value) => value !== undefined);
    const settings = { model, provider, systemPrompt };
    if (!organizes && !changesSettings(settings)) {
      throw invalid(
        'The body must set at least one of title, pinned, archived, model, provider or systemPrompt; got none.',
      );
    }
    let view: ChatView | undefined;
    if (changesSettings(settings)) {
      const chat = await this.#requireChat(userId, chatId);
      view = await changeChatSettings(this.#dependencies, chat, provider, checked);
    }
    if (organizes) view = await this.organizer.update(userId, chatId, organized);
    return view!;
  }

  /** Reports a chat as it applies now: its working directory's path, whether it is confined. */
  #presenter(userId: string): Promise<(chat: Chat) => ChatView> {
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
   * The chat's current (newest) turn record without its holder: running or how it ended, its usage
   * and durations.
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
   * Runs the last user message again, replacing what follows; otherwise `startTurn`'s turn.
   * @throws ChatError `nothing_to_rerun` (no user message), and `startTurn`'s.
   */
  async regenerateTurn(userId: string, chatId: string): Promise<TurnFollower> {
    const chat = await this.#requireChat(userId, chatId);
    const find = lastUserMessagePoint(chatId);
    // Checked before the claim too, so a refused rerun leaves no turn record behind.
    const { text } = find(await this.#dependencies.repository.listMessages(chatId));
    return this.#startTurn(chat, text, find);
  }

  /** A regenerate after a failed turn only. @throws ChatError `nothing_to_rerun`, and `regenerateTurn`'s. */
  async retryTurn(userId: string, chatId: string): Promise<TurnFollower> {
    await this.#requireChat(userId, chatId);
    const { repository } = this.#dependencies;
    requireFailedTurn(chatId, await this.#turns.current(chatId), await repository.listMessages(chatId));
    return this.regenerateTurn(userId, chatId);
  }

  /**
   * Replaces a user message (and all after it) with `message` and runs from there; otherwise
   * `startTurn`'s turn. @throws ChatError `not_found`, `invalid_request`, and `startTurn`'s.
   */
  async editMessage(
    userId: string,
    chatId: string,
    messageId: string,
    message: string,
  ): Promise<TurnFollower> {
    checkMessage(message);
    const chat = await this.#requireChat(userId, chatId);
    const find = editedMessagePoint(chatId, messageId, message);
    // Checked before the claim too, so a refused edit leaves no turn record behind.
    find(isStorableText(messageId) ? await this.#dependencies.repository.listMessages(chatId) : []);
    return this.#startTurn(chat, message, find);
  }

  /**
   * Starts a turn and returns a follower of its events from the first. Fails before any event with
   * `not_found`, `busy`, `too_many_turns`, `invalid_request` (empty message), `invalid_attachment` (one of
   * `paths`, checked before the claim: no turn record is left), `provider_unavailable` or `turn_not_started`
   * (the message could not be committed under the turn's lease). Resolves once the turn record and the
   * user's message are committed; the turn runs to its end, read or not (only `cancelTurn` stops it).
   */
  async startTurn(userId: string, chatId: string, message: string, paths: readonly string[] = []) {
    checkMessage(message);
    const chat = await this.#requireChat(userId, chatId);
    const attachments = await checkAttachments(paths, () => this.#accessOf(chat), userId, this.#now);
    return this.#startTurn(chat, message, undefined, attachments);
  }

  /** The one path of every turn, a rerun's (`rerun`: where it replaces the chat) included. */
  #startTurn(chat: Chat, message: string, rerun?: FindRerunPoint, files?: MessageAttachment[]) {
    const chatId = chat.id;
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
          attachments: files,
          ...(rerun ? { rerun } : {}),
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
