/**
 * The transcript's data types (what `transcript.ts` folds events into and the chat view renders): the
 * entries of a chat — user and model text, tool calls with their status and approval, notices and
 * usage — kept apart from the fold so the modules that handle one part of it (`finish-turn.ts`) need
 * no cycle back to the fold.
 */
import type { TurnUsage } from './api-client.ts';

/** `queued`: not started, behind an earlier call of its response that waits for approval. */
export type ToolCallStatus = 'streaming' | 'running' | 'waiting' | 'queued' | 'succeeded' | 'failed';

/** Why a call asked for approval, and once answered (or timed out…) how it ended. */
export interface ToolApproval {
  /** Which setting asked, as the server words it. */
  reason: string;
  /** ISO 8601: when an unanswered request is denied. */
  expiresAt?: string;
  decision?: 'approved' | 'denied';
  /** Who decided: `user`, `timeout`, `cancel` (the turn was cancelled) or `interrupted`. */
  by?: string;
  /** The user's reason for a denial, when given. */
  denialReason?: string;
  /** The rule saved with the answer (the route's and the event's `remembered`), shown on the card. */
  remembered?: { setting: string; rule: string };
}

export interface ToolCallEntry {
  kind: 'tool';
  callId: string;
  name: string;
  /** The raw argument JSON as it streamed in (complete once status leaves `streaming`). */
  argumentsText: string;
  status: ToolCallStatus;
  result?: unknown;
  error?: { classification?: string; message: string };
  durationMs?: number;
  progress: Record<string, unknown>[];
  approval?: ToolApproval;
  /** Made from the turn record before the stream replayed the call; moved into place when it does. */
  fromRecord?: boolean;
  /**
   * The model response that made the call, named by that response's first call id (so a live stream and
   * the stored history name it alike): consecutive calls of one step are one group on screen.
   */
  step: string;
}

export type TranscriptEntry =
  /** `attachments`: the real paths of the files sent with the message. */
  | { kind: 'user'; text: string; attachments?: readonly string[] }
  | { kind: 'assistant'; text: string }
  | ToolCallEntry
  | { kind: 'notice'; text: string; tone: 'info' | 'error' }
  /** The tokens a turn used, shown under its answer once it ended. */
  | ({ kind: 'usage' } & TurnUsage);

export interface Transcript {
  entries: TranscriptEntry[];
  /** True between sending a message and the turn's `done` (or the stream closing). */
  running: boolean;
  doneReason?: string;
  /** Tokens of the running turn's model calls so far (its `finish` events). */
  turnUsage?: TurnUsage;
  /**
   * The `step` of the model response whose calls are arriving: set by its first call, ended by its
   * `finish` (in stored history also by a result, as a turn from before traces has no `finish`).
   */
  openStep?: string;
}
