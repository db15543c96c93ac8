/**
 * The approval step of one tool call in the turn loop (docs/turns.md, "Approvals"), between argument
 * parsing and execution.
 *
 * Guarantees:
 * - A call that would fail the checks `executeTool` makes first (unknown or disabled tool, arguments
 *   that fail the schema) is never asked about: it gets that failure at once.
 * - Whether to ask is `decideApproval` (`src/approvals/approval-decision.ts`); when it asks and no gate was
 *   given, the call is denied with {@link NO_GATE_MESSAGE} (fails closed).
 * - A question asked emits exactly one `tool_approval_requested` and, once the gate answers, exactly
 *   one `tool_approval_resolved` (with the rule the user saved, when they saved one); a question that could not even be recorded emits neither and denies.
 * - Denied by the user: a `denied` failure carrying their reason; by the timeout: a `denied` failure
 *   saying it timed out after N seconds; by a cancel or an interrupted turn: a `cancelled` failure.
 */

import type { TurnEvent } from '../contracts/turn-event.ts';
import { errorMessage } from '../errors/error-message.ts';
import type { ExecuteToolOptions } from '../tools/execution.ts';
import { type PreparedToolCall, prepareToolCall } from '../tools/execution.ts';
import type { ToolCallContext, ToolExecutionResult } from '../tools/types.ts';
import { assessToolCallApproval } from './assess-tool-call-approval.ts';
import {
  NO_GATE_MESSAGE,
  type RememberedApprovalRule,
  type ToolApprovalGate,
  type ToolApprovalOutcome,
} from './tool-approval-gate.ts';

export interface ToolCallApprovalInput {
  callId: string;
  name: string;
  /** The parsed (not yet validated) arguments. */
  arguments: unknown;
  context: ToolCallContext;
  savedSettings: unknown;
  executeOptions?: ExecuteToolOptions;
  gate: ToolApprovalGate | undefined;
  signal: AbortSignal;
  emit: (event: TurnEvent) => void;
}

export type ToolCallApproval =
  /** `call` is what the checks accepted: run it as it is (`runPreparedToolCall`). */
  | { run: true; call: PreparedToolCall; asked: boolean; remembered?: RememberedApprovalRule }
  | { run: false; envelope: ToolExecutionResult };

/** A call that does not run, failing with `classification` and `message`. */
function notRun(classification: 'denied' | 'cancelled', message: string): ToolCallApproval {
  return { run: false, envelope: { ok: false, error: { classification, message } } };
}

function denied(message: string): ToolCallApproval {
  return notRun('denied', message);
}

function outcomeFailure(outcome: ToolApprovalOutcome, timeoutSeconds: number): ToolCallApproval {
  switch (outcome.by) {
    case 'timeout':
      return denied(
        `Nobody answered the approval question within ${timeoutSeconds} seconds (approvalTimeoutSeconds), so the call was denied and not run.`,
      );
    case 'cancel':
      return notRun('cancelled', 'The turn was cancelled while the call waited for approval.');
    case 'interrupted':
      return notRun(
        'cancelled',
        'The turn was interrupted (its server lost the chat) while the call waited for approval.',
      );
    default:
      return denied(
        outcome.reason ? `The user denied this call: ${outcome.reason}` : 'The user denied this call.',
      );
  }
}

/** Decides, asks when needed, and says whether the call runs. Never throws. */
export async function approveToolCall(input: ToolCallApprovalInput): Promise<ToolCallApproval> {
  const prepared = prepareToolCall(input.name, input.arguments, input.savedSettings, input.executeOptions);
  if (!prepared.ok) return { run: false, envelope: prepared.failure };
  const { call } = prepared;
  let decision: Awaited<ReturnType<typeof assessToolCallApproval>>;
  try {
    decision = await assessToolCallApproval(call, input.context);
  } catch (error) {
    // Undecidable is not a yes: ask.
    decision = {
      ask: true,
      reason: `Whether ${input.name} may run without asking could not be decided (${errorMessage(error)}).`,
    };
  }
  if (!decision.ask) return { run: true, call, asked: false };
  if (input.gate === undefined) return denied(NO_GATE_MESSAGE);
  // A turn already cancelled asks nothing; the call gets the cancel, worded as executeTool words it.
  if (input.signal.aborted)
    return notRun('cancelled', `Tool "${input.name}" was cancelled before it started.`);

  const timeoutSeconds = Number(call.settings.parameters.approvalTimeoutSeconds);
  let asked: Awaited<ReturnType<ToolApprovalGate['ask']>>;
  try {
    asked = await input.gate.ask(
      {
        callId: input.callId,
        name: input.name,
        arguments: call.arguments,
        reason: decision.reason,
        timeoutSeconds,
      },
      input.signal,
    );
  } catch (error) {
    if (input.signal.aborted) return outcomeFailure({ decision: 'denied', by: 'cancel' }, timeoutSeconds);
    return denied(
      `The approval question could not be recorded (${errorMessage(error)}), so the call was not run.`,
    );
  }
  input.emit({
    type: 'tool_approval_requested',
    callId: input.callId,
    name: input.name,
    arguments: call.arguments,
    reason: decision.reason,
    expiresAt: asked.pending.expiresAt,
  });
  const outcome = await asked.answer;
  input.emit({
    type: 'tool_approval_resolved',
    callId: input.callId,
    name: input.name,
    decision: outcome.decision,
    by: outcome.by,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    ...(outcome.decision === 'approved' && outcome.remembered !== undefined
      ? { remembered: outcome.remembered }
      : {}),
  });
  if (outcome.decision === 'denied') return outcomeFailure(outcome, timeoutSeconds);
  return outcome.remembered === undefined
    ? { run: true, call, asked: true }
    : { run: true, call, asked: true, remembered: outcome.remembered };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A saved settings row with `rule` added to its list (once), so the rest of the turn applies a rule the
 * user just remembered without reloading settings. An unusable row keeps what can be kept.
 */
export function withRememberedRule(saved: unknown, remembered: RememberedApprovalRule): unknown {
  const row = isRecord(saved) ? { ...saved } : {};
  const parameters = isRecord(row.parameters) ? { ...row.parameters } : {};
  const current = Array.isArray(parameters[remembered.setting])
    ? (parameters[remembered.setting] as unknown[]).filter((item) => typeof item === 'string')
    : [];
  parameters[remembered.setting] = current.includes(remembered.rule)
    ? current
    : [...current, remembered.rule];
  return { ...row, parameters };
}
