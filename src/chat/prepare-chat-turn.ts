/**
 * Builds the event stream of one chat turn once the chat is claimed: the chat's provider (or
 * `provider_unavailable`), its title derived from the first message, the user's tools, the repaired
 * history, the user's message committed under the turn's fence (before the turn is acknowledged), and
 * the turn loop with its persistence, per-call access check and the database-backed
 * approval gate. Part of `ChatService.startTurn`, in its own module so each stays readable.
 */

import { StoredToolApprovalGate } from '../approvals/stored-tool-approval-gate.ts';
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
import type { FreshnessLedger } from '../tools/freshness-ledger.ts';
import type { BackgroundTurn } from '../turns/background-turn.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import { toolAccessContext } from '../workspaces/tool-access.ts';
import type { BoundAccess } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import type { Chat, ChatRepository } from './chat-repository.ts';
import { DEFAULT_CHAT_TITLE, titleFromMessage } from './chat-title.ts';

/** The parts of the chat service's dependencies a turn uses. */
export interface ChatTurnDependencies {
  repository: ChatRepository;
  createProvider: (providerId: ProviderId) => ModelProvider;
  /** The user's tools for a chat with `reachable` (a program's tools can depend on what it sees). */
  loadToolRuntime: (userId: string, reachable: ReachableSet) => Promise<EnabledToolRuntime>;
  createLedger: (chatId: string) => FreshnessLedger;
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
  message: string;
  run: BackgroundTurn;
  now: () => number;
  /** How often a waiting approval's row is read (the cancel poll's interval). */
  pollMilliseconds: number;
  wakeups: WakeUpSource;
}

export async function prepareChatTurn(input: PrepareChatTurnInput): Promise<AsyncGenerator<TurnEvent, void>> {
  const { dependencies, chat, access, message, run } = input;
  let provider: ModelProvider;
  try {
    provider = dependencies.createProvider(chat.provider);
  } catch (error) {
    throw new ChatError(
      'provider_unavailable',
      `Provider "${chat.provider}" is not available: ${errorMessage(error)}`,
    );
  }
  // A chat still called "New chat" (new, or from before titles were derived) is named after the
  // message that starts this turn; a title the user chose is never replaced.
  if (chat.title === DEFAULT_CHAT_TITLE) {
    const title = titleFromMessage(message);
    if (title !== DEFAULT_CHAT_TITLE) {
      await dependencies.repository.renameChat(chat.id, title, DEFAULT_CHAT_TITLE);
    }
  }
  const [tools, messages] = await Promise.all([
    dependencies.loadToolRuntime(chat.userId, access.reachable),
    dependencies.repository.listMessages(chat.id),
  ]);
  // Committed (under the turn's fence) before the caller acknowledges the turn: a client that saw the
  // stream start must find its message stored whatever happens to this instance afterwards.
  await run.saveItem({ type: 'user_text', text: message });
  return runModelLoop({
    provider,
    model: chat.model,
    systemPrompt: buildSystemPrompt({
      reachable: access.reachable,
      confined: access.confined,
      chatSystemPrompt: chat.systemPrompt ?? undefined,
    }),
    history: repairHistory(messages.map((row) => row.item)),
    userText: message,
    userTextSaved: true,
    tools,
    toolContext: {
      userId: chat.userId,
      chatId: chat.id,
      ...toolAccessContext(access.reachable),
      ledger: dependencies.createLedger(chat.id),
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
