/**
 * The contract between the turn loop and whoever answers "may this call run?" (docs/turns.md,
 * "Approvals"). The loop decides that a call needs approval; a gate records the question, lets the
 * user answer it, and resolves exactly once: approved by the user, or denied by the user, the timeout,
 * a cancel of the turn, or the turn being interrupted (its instance lost the lease). The chat service
 * passes a database-backed gate (`stored-tool-approval-gate.ts`), `mango chat` a terminal one.
 *
 * A loop given no gate denies every call that needs approval ({@link NO_GATE_MESSAGE}): a question
 * nobody can answer must not turn into a yes.
 */
import type { RememberedApprovalRule, ToolApprovalResolver } from '../contracts/turn-event.ts';

export type { RememberedApprovalRule };

/** A call currently waiting for an answer, as the turn record's `pendingApprovals` lists it. */
export interface PendingToolApproval {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  reason: string;
  /** ISO 8601. */
  requestedAt: string;
  /** ISO 8601: unanswered by then, the call is denied. */
  expiresAt: string;
}

/** The waiting record of `question`, asked at `requestedAt` (epoch milliseconds). */
export function pendingApprovalOf(question: ToolApprovalQuestion, requestedAt: number): PendingToolApproval {
  return {
    callId: question.callId,
    name: question.name,
    arguments: question.arguments,
    reason: question.reason,
    requestedAt: new Date(requestedAt).toISOString(),
    expiresAt: new Date(requestedAt + question.timeoutSeconds * 1000).toISOString(),
  };
}

/** What the loop asks about one call. */
export interface ToolApprovalQuestion {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
  /** Which setting asked, in words. */
  reason: string;
  /** The tool's `approvalTimeoutSeconds`. */
  timeoutSeconds: number;
}

export type ToolApprovalOutcome =
  | { decision: 'approved'; by: 'user'; reason?: string; remembered?: RememberedApprovalRule }
  | { decision: 'denied'; by: ToolApprovalResolver; reason?: string };

/** A question recorded and waiting. */
export interface AskedToolApproval {
  pending: PendingToolApproval;
  /** Resolves once, never rejects. */
  answer: Promise<ToolApprovalOutcome>;
}

export interface ToolApprovalGate {
  /**
   * Records the question (so any client can see and answer it) and returns it with its answer to come.
   * `signal` is the turn's: when it fires the answer resolves as denied by `cancel` (or `interrupted`).
   * @throws when the question cannot be recorded; the loop then denies the call.
   */
  ask(question: ToolApprovalQuestion, signal: AbortSignal): Promise<AskedToolApproval>;
}

/** Why a call that needs approval was denied when the loop has no gate. */
export const NO_GATE_MESSAGE =
  'This call needs the user\'s approval, but nobody can answer here (no approval channel), so it was not run. Tell the user; they can set the tool\'s "approval" setting to "never" or add an auto-approve rule.';
