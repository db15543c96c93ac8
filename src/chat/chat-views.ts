/**
 * What the chat service takes and answers, shared by the service and the organizer: a new chat's
 * input, a chat as it applies now (its working directory's real path, whether it is confined now), a
 * chat with its messages and turns, and the current turn as the API shows it (never its holder). Only
 * the user's own chat is found: another user's is `not_found`, never `forbidden`.
 */
import type { PendingToolApproval } from '../approvals/tool-approval-gate.ts';
import type { TurnRecord } from '../turns/turn-repository.ts';
import type { WorkspaceService } from '../workspaces/workspace-service.ts';
import { ChatError } from './chat-errors.ts';
import type { Chat, ChatMessage, ChatRepository } from './chat-repository.ts';
import { isStorableText } from './storable-text.ts';

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

/** What a client shows of an ended or running turn besides its messages. */
export type TurnSummary = Omit<TurnRecord, 'holder' | 'leaseExpiresAt' | 'cancelRequestedAt'>;

/** The current turn as the API shows it: the record without its holder, and what waits for approval. */
export type CurrentTurn = Omit<TurnRecord, 'holder'> & { pendingApprovals: PendingToolApproval[] };

export interface ChatWithMessages {
  chat: ChatView;
  messages: ChatMessage[];
  /** The chat's turns, oldest first: usage, durations, error and trace of each (`turn-trace.ts`). */
  turns: TurnSummary[];
}

export function summarizeTurn(record: TurnRecord): TurnSummary {
  const { holder: _holder, leaseExpiresAt: _lease, cancelRequestedAt: _cancel, ...summary } = record;
  return summary;
}

export function chatNotFound(chatId: string): ChatError {
  return new ChatError('not_found', `No chat with id ${chatId}.`);
}

/** The user's chat. @throws ChatError `not_found` when there is none or it is another user's. */
export async function requireUserChat(
  repository: ChatRepository,
  userId: string,
  chatId: string,
): Promise<Chat> {
  // An id no chat can have (NUL, lone surrogate) is not sent to the database, whose driver refuses it.
  const chat = isStorableText(chatId) ? await repository.getChat(chatId) : undefined;
  if (!chat || chat.userId !== userId) throw chatNotFound(chatId);
  return chat;
}

/** Reports a chat as it applies now: its working directory's path, whether it is confined. */
export async function chatPresenter(
  workspaces: WorkspaceService,
  userId: string,
): Promise<(chat: Chat) => ChatView> {
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
