/**
 * Builds the event stream of one chat turn once the chat is claimed: the chat's provider (or
 * `provider_unavailable`), its title derived from the first message, the user's tools, the repaired
 * history, the user's message committed under the turn's fence (before the turn is acknowledged), and
 * the turn loop with its persistence, per-call access check and the database-backed
 * approval gate. A rerun (regenerate, edit, retry) is the same turn: its user message replaces the chat
 * from the rerun's point on in the same fenced write, after the chat's freshness ledger forgot what the
 * replaced part read. Part of `ChatService`'s turns, in its own module so each stays readable.
 */

import { StoredToolApprovalGate } from '../approvals/stored-tool-approval-gate.ts';
import type { ConversationItem, MessageAttachment } from '../contracts/conversation-item.ts';
import type { ProviderId } from '../contracts/provider-id.ts';
import type { TurnEvent } from '../contracts/turn-event.ts';
import { errorMessage } from '../errors/error-message.ts';
import { repairHistory } from '../model-loop/history-repair.ts';
import { type ModelLoopLimits, type ModelLoopToolContext, runModelLoop } from '../model-loop/model-loop.ts';
import { buildSystemPrompt } from '../model-loop/system-prompt.ts';
import type { ModelProvider } from '../providers/model-provider.ts';
import type { EnabledToolRuntime } from '../settings/tool-runtime.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { ExecuteToolOptions, ToolTimers } from '../tools/execution.ts';
import type { ChatFreshnessLedger } from '../tools/freshness-ledger.ts';
import type { BackgroundTurn } from '../turns/background-turn.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import { toolAccessContext } from '../workspaces/tool-access.ts';
import type { BoundAccess } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import type { Chat, ChatMessage, ChatRepository } from './chat-repository.ts';
import { DEFAULT_CHAT_TITLE, titleFromMessage } from './chat-title.ts';
import { withAttachmentNotes } from './message-attachments.ts';
import { historyWithRerunNotes } from './rerun-history.ts';

/** Where a rerun replaces the chat: from this stored user message on. */
export interface RerunPoint {
  /** The user message's `seq`: it and every later message are replaced. */
  seq: number;
  /** When it was stored (ISO 8601): everything the replaced part read was recorded since. */
  createdAt: string;
  /** The rerun's user message: the same text (regenerate, retry) or the edited one. */
  text: string;
  /** The files the message had attached (an edit keeps them). */
  attachments?: MessageAttachment[];
}

/**
 * Finds a rerun's point in the chat's messages as they are once the chat is claimed (so no other
 * turn adds to them meanwhile), or throws the `ChatError` that says why there is none.
 */
export type FindRerunPoint = (messages: readonly ChatMessage[]) => RerunPoint;

/** The parts of the chat service's dependencies a turn uses. */
export interface ChatTurnDependencies {
  repository: ChatRepository;
  createProvider: (providerId: ProviderId) => ModelProvider;
  /** The user's tools for a chat with `reachable` (a program's tools can depend on what it sees). */
  loadToolRuntime: (userId: string, reachable: ReachableSet) => Promise<EnabledToolRuntime>;
  createLedger: (chatId: string) => ChatFreshnessLedger;
  dataDirectory?: string;
  limits?: ModelLoopLimits;
  executeOptions?: ExecuteToolOptions;
  approvalTimers?: ToolTimers;
  log?: (line: string) => void;
}

export interface PrepareChatTurnInput {
  dependencies: ChatTurnDependencies;
  chat: Chat;
  access: BoundAccess;
  /** The chat's access again, before each call. */
  accessForCall: () => Promise<Partial<ModelLoopToolContext>>;
  /** The user's message of a new turn; a rerun's comes from its point. */
  message: string;
  /** The new message's attachments, checked (`checkAttachments`); a rerun's come from its point. */
  attachments?: MessageAttachment[];
  /** Absent: a new turn after the chat's messages. */
  rerun?: FindRerunPoint;
  run: BackgroundTurn;
  now: () => number;
  /** How often a waiting approval's row is read (the cancel poll's interval). */
  pollMilliseconds: number;
  wakeups: WakeUpSource;
}

export async function prepareChatTurn(input: PrepareChatTurnInput): Promise<AsyncGenerator<TurnEvent, void>> {
  const { dependencies, chat, access, run } = input;
  let provider: ModelProvider;
  try {
    provider = dependencies.createProvider(chat.provider);
  } catch (error) {
    throw new ChatError(
      'provider_unavailable',
      `Provider "${chat.provider}" is not available: ${errorMessage(error)}`,
    );
  }
  const [tools, stored] = await Promise.all([
    dependencies.loadToolRuntime(chat.userId, access.reachable),
    dependencies.repository.listMessageHistory(chat.id),
  ]);
  const point = input.rerun?.(stored.filter((row) => row.discardedBy === undefined));
  const message = point?.text ?? input.message;
  // A chat still called "New chat" (new, or from before titles were derived) is named after the
  // message that starts this turn; a title the user chose is never replaced.
  if (chat.title === DEFAULT_CHAT_TITLE) {
    const title = titleFromMessage(message);
    if (title !== DEFAULT_CHAT_TITLE) {
      await dependencies.repository.renameChat(chat.id, title, DEFAULT_CHAT_TITLE);
    }
  }
  const ledger = dependencies.createLedger(chat.id);
  let messages = stored;
  let replaceFromSeq: number | undefined;
  if (point) {
    // Forgotten before the replacement is written: forgetting too much only costs a read again.
    await ledger.forgetSince(Date.parse(point.createdAt));
    replaceFromSeq = point.seq;
    messages = stored.map((row) =>
      row.seq >= point.seq && !row.discardedBy ? { ...row, discardedBy: run.record.id } : row,
    );
  }
  // Committed (under the turn's fence) before the caller acknowledges the turn: a client that saw the
  // stream start must find its message stored whatever happens to this instance afterwards.
  const attachments = point ? point.attachments : input.attachments;
  const userItem: ConversationItem =
    attachments !== undefined && attachments.length > 0
      ? { type: 'user_text', text: message, attachments }
      : { type: 'user_text', text: message };
  await run.saveItem(userItem, replaceFromSeq);
  // What the model reads: a replaced part's note, and the paths of each message's attachments.
  const history = withAttachmentNotes(historyWithRerunNotes([...messages, { item: userItem }]));
  const sent = history.pop();
  return runModelLoop({
    provider,
    model: chat.model,
    systemPrompt: buildSystemPrompt({
      reachable: access.reachable,
      confined: access.confined,
      chatSystemPrompt: chat.systemPrompt ?? undefined,
    }),
    history: repairHistory(history),
    // The user's message as stored, or with the note of what a replaced part ran (`rerun-history.ts`).
    userText: sent?.type === 'user_text' ? sent.text : message,
    userTextSaved: true,
    tools,
    toolContext: {
      userId: chat.userId,
      chatId: chat.id,
      ...toolAccessContext(access.reachable),
      ledger,
      dataDirectory: dependencies.dataDirectory,
    },
    accessForCall: input.accessForCall,
    signal: run.controller.signal,
    now: input.now,
    limits: dependencies.limits,
    onItem: async (item) => {
      await run.saveItem(item);
    },
    executeOptions: dependencies.executeOptions,
    approvals: new StoredToolApprovalGate({
      store: dependencies.repository.approvals,
      turnId: run.record.id,
      chatId: chat.id,
      fencedWrite: (operation) => run.fencedWrite(operation),
      isLost: () => run.isLost,
      now: input.now,
      pollMilliseconds: input.pollMilliseconds,
      wakeups: input.wakeups,
      timers: dependencies.approvalTimers,
      log: dependencies.log,
    }),
  });
}
