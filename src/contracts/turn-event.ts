/**
 * What one chat turn streams to its client (docs/turns.md, "The event stream"): every provider
 * event as it arrives, for a call that needs the user's yes one `tool_approval_requested` and later one
 * `tool_approval_resolved`, one `tool_progress` per progress event a running tool reports, one
 * `tool_result` per tool call (in call order), and exactly one final `done`.
 * The chat loop produces them, HTTP encodes them as SSE, MCP and the command line read them, so they
 * sit at the bottom of the layer order (docs/architecture.md), as types only.
 */
import type { ProviderEvent } from './provider-event.ts';
import type { ToolFailure } from './tool-failure.ts';
import type { ToolProgressEvent } from './tool-progress-event.ts';

/** Why a turn ended. */
export type TurnDoneReason =
  /** The model answered without calling tools. */
  | 'completed'
  /** The model still called tools on the last allowed iteration (tools were withheld). */
  | 'max_iterations'
  /** The caller's signal fired (user cancel, client disconnect). */
  | 'cancelled'
  /** The provider failed, the stream was cut, or the conversation could not be saved. */
  | 'error';

export type ToolResultEvent = {
  type: 'tool_result';
  callId: string;
  name: string;
  durationMs: number;
} & ({ ok: true; result: unknown } | { ok: false; error: ToolFailure });

export interface ToolProgressTurnEvent {
  type: 'tool_progress';
  callId: string;
  name: string;
  /** The event exactly as the tool reported it through `context.onProgress`. */
  progress: ToolProgressEvent;
}

/** A call waits for the user's approval (answered with `POST /api/chats/:id/approvals/:callId`). */
export interface ToolApprovalRequestedEvent {
  type: 'tool_approval_requested';
  callId: string;
  name: string;
  /** The call's arguments as validated (an object). */
  arguments: Record<string, unknown>;
  /** Which setting asked, in words. */
  reason: string;
  /** ISO 8601: unanswered by then, the call is denied. */
  expiresAt: string;
}

/** Who ended a wait for approval. */
export type ToolApprovalResolver = 'user' | 'timeout' | 'cancel' | 'interrupted';

/**
 * A rule the user saved while approving a call: an exact command (`autoApprovedExactCommands`) or a
 * command prefix (`autoApprovedCommands`) of the call's tool.
 */
export interface RememberedApprovalRule {
  setting: 'autoApprovedCommands' | 'autoApprovedExactCommands';
  rule: string;
}

/** A wait for approval ended: the call runs (`approved`) or gets a failed result (`denied`). */
export interface ToolApprovalResolvedEvent {
  type: 'tool_approval_resolved';
  callId: string;
  name: string;
  decision: 'approved' | 'denied';
  by: ToolApprovalResolver;
  /** The user's reason, when they gave one. */
  reason?: string;
  /**
   * The rule saved with an approval ("remember", "Always allow…"), so every client — live, re-attached
   * or reloaded from the turn's trace — can say which rule the answer added.
   */
  remembered?: RememberedApprovalRule;
}

/** The model's own finish reasons a client shows the user when a turn completes with one. */
export type TurnFinishReason = 'length' | 'refusal' | 'content_filter';

export interface TurnDoneEvent {
  type: 'done';
  reason: TurnDoneReason;
  /** Human-readable detail for `error`, `max_iterations`, `cancelled` and a `finishReason`. */
  message?: string;
  /**
   * On `completed`: the answer was cut by the output limit, is the model's refusal, or was stopped by
   * the provider's content filter. Absent for a plain answer.
   */
  finishReason?: TurnFinishReason;
}

export type TurnEvent =
  | ProviderEvent
  | ToolApprovalRequestedEvent
  | ToolApprovalResolvedEvent
  | ToolResultEvent
  | ToolProgressTurnEvent
  | TurnDoneEvent;
