/**
 * The claim of a turn refused because the chat's owner already runs as many turns as one user may
 * (`MANGO_USER_MAX_TURNS`), counted by the repository in the same atomic step as the claim, across every
 * instance sharing the database. Thrown by `TurnRepository.claimTurn`; the coordinator turns it into the chat
 * error `too_many_turns`, so the repository speaks no HTTP and the service no SQL.
 */
import { MangoError } from '../errors/mango-error.ts';
export class UserTurnLimitError extends MangoError {
  /** The limit the claim was held to. */
  readonly limit: number;

  constructor(limit: number) {
    super(
      'user_turn_limit',
      `The chat's owner already runs ${limit} turns, the most one user may run at once.`,
    );
    this.name = 'UserTurnLimitError';
    this.limit = limit;
  }
}
