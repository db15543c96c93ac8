/**
 * Where the approval questions of running turns live (the `tool_approvals` table; in memory for a
 * server without a database), so that any instance can answer a question the instance running the
 * turn asked: the contract shared by `src/db/database-tool-approval-repository.ts` and
 * `in-memory-tool-approval-repository.ts`.
 *
 * Guarantees every implementation gives:
 * - A question is recorded only under its turn's fence (running, same token, live lease), like every
 *   other write of the turn.
 * - A question leaves `waiting` exactly once: the first of an answer, the timeout, a cancel or an
 *   interruption wins, each a conditional update of a `waiting` row (so two instances answering at once
 *   get one winner).
 * - An answer is accepted only while the question waits, before it expires, and while its turn still
 *   runs with a live lease: an answer to a turn whose instance is gone or paused past its lease is
 *   refused, and the later instance never runs a call nobody is waiting on.
 */
import type { TurnFence } from '../turns/turn-fence.ts';
import type { PendingToolApproval, RememberedApprovalRule } from './tool-approval-gate.ts';

/** `waiting` until answered (`approved`, `denied`) or closed (`timed_out`, `cancelled`, `interrupted`). */
export type ToolApprovalState = 'waiting' | 'approved' | 'denied' | 'timed_out' | 'cancelled' | 'interrupted';

export interface ToolApprovalRecord extends PendingToolApproval {
  /** Chosen by the asking instance; the question's key. */
  id: string;
  turnId: string;
  chatId: string;
  state: ToolApprovalState;
  /** The user's reason for their answer, when they gave one. */
  decisionReason: string | null;
  /** ISO 8601, when it left `waiting`. */
  resolvedAt: string | null;
  /** The rule the user remembered with an approval. */
  remembered: RememberedApprovalRule | null;
}

export type NewToolApproval = Omit<
  ToolApprovalRecord,
  'state' | 'decisionReason' | 'resolvedAt' | 'remembered'
>;

export interface ToolApprovalAnswer {
  decision: 'approved' | 'denied';
  reason?: string;
  remembered?: RememberedApprovalRule;
  /** ISO 8601: the answerer's clock, checked against the expiry and the turn's lease. */
  now: string;
}

export interface ToolApprovalRepository {
  /** Records a waiting question. @throws TurnFencedError when the fence no longer holds. */
  insertApproval(fence: TurnFence, approval: NewToolApproval): Promise<void>;
  getApproval(id: string): Promise<ToolApprovalRecord | undefined>;
  /**
   * The question with this call id in the chat's newest turn: the waiting one if any (a model may reuse
   * a call id within a turn), else the newest, whatever its state.
   */
  findApproval(chatId: string, callId: string): Promise<ToolApprovalRecord | undefined>;
  /** The turn's waiting questions, oldest first. */
  listWaiting(turnId: string): Promise<ToolApprovalRecord[]>;
  /**
   * Answers a waiting, unexpired question of a turn that still runs with a live lease.
   * @returns false (nothing written) otherwise.
   */
  answerApproval(id: string, answer: ToolApprovalAnswer): Promise<boolean>;
  /** Closes a question that still waits. @returns false when it had left `waiting` already. */
  closeApproval(id: string, state: 'timed_out' | 'cancelled' | 'interrupted', now: string): Promise<boolean>;
}

/** A waiting record as the turn record's `pendingApprovals` lists it. */
export function toPendingApproval(record: ToolApprovalRecord): PendingToolApproval {
  const { callId, name, arguments: args, reason, requestedAt, expiresAt } = record;
  return { callId, name, arguments: args, reason, requestedAt, expiresAt };
}
