/**
 * The fence every write of a turn carries, and the error when it no longer holds. A turn's holder can
 * be paused or cut off past its lease while another instance takes the chat over; the fence is what
 * makes the old holder's late writes fail instead of interleaving with the new turn's.
 */
import { MangoError } from '../errors/mango-error.ts';

/** What every write of a turn proves: which turn, its token, and the writer's clock. */
export interface TurnFence {
  turnId: string;
  fencingToken: number;
  /** ISO 8601: the lease must be unexpired at this instant. */
  now: string;
  /**
   * False only to finish a write that was in flight when the holder gave the turn up: the token and
   * `running` state still hold (nobody took over), so it cannot interleave with another turn.
   */
  requireLiveLease?: boolean;
}

/** Why a write of a turn was refused: another turn took over, or the lease lapsed. */
export class TurnFencedError extends MangoError {
  constructor(
    message = 'This turn no longer holds the chat: its lease expired or another turn replaced it.',
  ) {
    super('turn_fenced', message);
    this.name = 'TurnFencedError';
  }
}
