/**
 * Where turn records and their events live: the contract, shared by the database repository
 * (`src/db/database-turn-repository.ts`) and the in-memory one (`in-memory-turn-repository.ts`).
 *
 * Guarantees every implementation gives:
 * - At most one `running` turn per chat; `claimTurn` is atomic (two instances never both win).
 * - With a `userTurnLimit`, a claim never makes the chat's owner run more turns than that (turns of
 *   theirs that are `running` with a lease unexpired at the claim's `now`, in any chat): the count and
 *   the insert are one atomic step, so claims from several instances at once cannot all pass it.
 * - A chat's fencing tokens grow by one per turn and never repeat.
 * - Every write of a turn (`appendTurnEvents`, `appendTurnMessage`, `renewTurn`, `finishTurn`) carries
 *   a `TurnFence` (`turn-fence.ts`) and is applied only if, in the same transaction, the turn is still `running` with
 *   that token and a lease unexpired at `fence.now`; otherwise it writes nothing and rejects with
 *   `TurnFencedError` (or returns false for `renewTurn`).
 * - Event and message writes are idempotent under retry: an event is keyed by `(turn, seq)` and a
 *   message by the id the caller chose, so a retried write after an ambiguous failure never duplicates.
 */
import type { ChatMessage } from '../chat/chat-message.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { TurnEvent } from '../contracts/turn-event.ts';
import type { TurnFence } from './turn-fence.ts';

/** `running` until the turn ends; `lost` when its holder stopped renewing (crash, pause, outage). */
export type TurnState = 'running' | 'completed' | 'max_iterations' | 'cancelled' | 'error' | 'lost';

export interface TurnErrorRecord {
  message: string;
}

export interface TurnDurations {
  /** From the claim to the end of the turn. */
  totalMs: number;
  /** The sum of the turn's tool call durations. */
  toolMs: number;
}

export interface TurnRecord {
  id: string;
  chatId: string;
  fencingToken: number;
  /** Which process holds the lease (`turn-holder.ts`). */
  holder: string;
  state: TurnState;
  /** Null once the turn ended. ISO 8601. */
  leaseExpiresAt: string | null;
  cancelRequestedAt: string | null;
  startedAt: string;
  endedAt: string | null;
  /** The chat's last message `seq` when the turn began: later messages are this turn's. */
  messageSeqAtStart: number;
  usage: unknown;
  durations: TurnDurations | null;
  progress: unknown;
  error: TurnErrorRecord | null;
}

export interface StoredTurnEvent {
  seq: number;
  /** Cumulative bytes of the turn's event JSON up to and including this event. */
  endOffset: number;
  event: TurnEvent;
}

export interface ClaimTurnInput {
  chatId: string;
  turnId: string;
  holder: string;
  now: string;
  leaseExpiresAt: string;
  /** A running turn whose holder is provably dead: taken over even though its lease is unexpired. */
  deadTurnId?: string;
  /** Most turns the chat's owner may run at once, this one included (`MANGO_USER_MAX_TURNS`); absent: no limit. */
  userTurnLimit?: number;
}

export interface FinishTurnInput {
  state: Exclude<TurnState, 'running' | 'lost'>;
  endedAt: string;
  usage?: unknown;
  durations?: TurnDurations;
  /** What clients saw beyond the messages (`turn-trace.ts`), so a reload shows the same. */
  progress?: unknown;
  error?: TurnErrorRecord;
}

export interface TurnRepository {
  /**
   * Starts a turn record for the chat, first ending (as `lost`) a running turn whose lease expired at
   * `now` or whose id is `deadTurnId`. Deletes the events of the chat's earlier turns.
   * @returns the new record; undefined when another turn runs (or the chat does not exist).
   * @throws UserTurnLimitError when the chat is free but its owner already runs `userTurnLimit` turns.
   */
  claimTurn(input: ClaimTurnInput): Promise<TurnRecord | undefined>;
  /** Extends the lease. False (nothing written) when the fence no longer holds. */
  renewTurn(fence: TurnFence, leaseExpiresAt: string): Promise<boolean>;
  /** Appends events with the given seqs (the holder numbers them 1, 2, 3…). */
  appendTurnEvents(fence: TurnFence, events: readonly StoredTurnEvent[]): Promise<void>;
  /**
   * Appends one conversation item to the chat's messages under the turn's fence. With `replaceFromSeq`
   * (a rerun's user message), the same atomic step first replaces the chat from that message on: every
   * message with that `seq` or a higher one, and every other turn that began at or after it
   * (`messageSeqAtStart >= replaceFromSeq - 1`), is marked discarded by the fence's turn. A retry with
   * the same message id after that step committed changes nothing more.
   */
  appendTurnMessage(
    fence: TurnFence,
    chatId: string,
    messageId: string,
    item: ConversationItem,
    replaceFromSeq?: number,
  ): Promise<ChatMessage>;
  /** Ends the turn and its lease. False when the fence no longer holds (it was already ended). */
  finishTurn(fence: TurnFence, outcome: FinishTurnInput): Promise<boolean>;
  /** Ends a running turn as `lost` if its lease expired at `now` or it is `deadTurnId`. */
  markTurnLost(chatId: string, now: string, reason: string, deadTurnId?: string): Promise<boolean>;
  /** Every turn of the chat a rerun did not discard, oldest first (by fencing token). */
  listTurns(chatId: string): Promise<TurnRecord[]>;
  /** The chat's newest turn (highest token), running or ended. */
  latestTurn(chatId: string): Promise<TurnRecord | undefined>;
  getTurn(turnId: string): Promise<TurnRecord | undefined>;
  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  listTurnEvents(turnId: string, afterSeq: number, limit: number): Promise<StoredTurnEvent[]>;
  /** The seq and end offset of the turn's last stored event; zeros when it has none. */
  turnEventsEnd(turnId: string): Promise<{ seq: number; endOffset: number }>;
  /** Records a cancel request on a running turn with a lease unexpired at `now`. */
  requestTurnCancel(turnId: string, now: string): Promise<boolean>;
}
