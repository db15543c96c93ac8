/**
 * What the chat service takes and answers: a new chat's input, a chat as it applies now, a chat with
 * its messages and turns, and the current turn as the API shows it (never its holder).
 */
import type { PendingToolApproval } from '../approvals/tool-approval-gate.ts';
import type { TurnRecord } from '../turns/turn-repository.ts';
import type { Chat, ChatMessage } from './chat-repository.ts';

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
