/**
 * The cross-instance half of "one turn at a time per chat" (issue 7): while a turn runs, its instance
 * holds the chat's lease in the repository (`chat_turn_leases` on the database), renews it, and polls
 * for a cancel another instance recorded there. A crashed instance stops renewing, so its lease expires
 * after `TURN_LEASE_MILLISECONDS`. A repository without lease methods (in memory, one process) makes
 * every call here a no-op: the service's own bookkeeping is then enough.
 */
import { ChatError } from './chat-errors.ts';
import type { ChatRepository } from './chat-repository.ts';

/** How long a turn lease lasts without renewal: a crashed instance's chat is free again after this. */
export const TURN_LEASE_MILLISECONDS = 30_000;
/** The running instance renews its lease this often (well inside its lifetime). */
const TURN_LEASE_RENEW_MILLISECONDS = 10_000;
/** How often the running instance looks for a cancel requested through another instance. */
export const TURN_CANCEL_POLL_MILLISECONDS = 400;

export const BUSY_MESSAGE = 'This chat is already running a turn; wait for it to end or cancel it.';

/** A held lease; `release()` is idempotent and never throws. */
export interface TurnLease {
  release(): Promise<void>;
}

export interface AcquireTurnLeaseOptions {
  repository: ChatRepository;
  chatId: string;
  /** Unique per turn, so a release never ends another turn's lease. */
  owner: string;
  /** Clock in epoch milliseconds. */
  now: () => number;
  /** Called when another instance asked this turn to stop. */
  onCancelRequested: () => void;
  /** The error for a chat deleted since it was looked up. */
  notFound: () => Error;
}

/**
 * Claims the chat's turn lease and keeps it alive until `release()`.
 * @throws ChatError `busy` when another instance's unexpired lease holds the chat; `notFound()` when the
 * chat was deleted meanwhile.
 */
export async function acquireTurnLease(options: AcquireTurnLeaseOptions): Promise<TurnLease> {
  const { repository, chatId, owner, now } = options;
  if (!repository.claimTurnLease) return { release: async () => {} };
  const startedAt = now();
  const claimed = await repository
    .claimTurnLease(
      chatId,
      owner,
      new Date(startedAt).toISOString(),
      new Date(startedAt + TURN_LEASE_MILLISECONDS).toISOString(),
    )
    .catch(async (error: unknown) => {
      if (!(await repository.getChat(chatId))) return false; // deleted meanwhile: notFound below
      throw error;
    });
  if (!claimed) {
    // Not claimed: another instance's turn, or the chat was deleted since it was looked up.
    if (!(await repository.getChat(chatId))) throw options.notFound();
    throw new ChatError('busy', BUSY_MESSAGE);
  }
  const renewal = setInterval(() => {
    const expiresAt = new Date(now() + TURN_LEASE_MILLISECONDS).toISOString();
    repository.renewTurnLease?.(chatId, owner, expiresAt).catch(() => {});
  }, TURN_LEASE_RENEW_MILLISECONDS);
  renewal.unref?.();
  let cancelPoll: ReturnType<typeof setInterval> | undefined;
  if (repository.isTurnCancelRequested) {
    const isCancelRequested = repository.isTurnCancelRequested.bind(repository);
    cancelPoll = setInterval(() => {
      isCancelRequested(chatId, owner).then(
        (requested) => requested && options.onCancelRequested(),
        () => {},
      );
    }, TURN_CANCEL_POLL_MILLISECONDS);
    cancelPoll.unref?.();
  }
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      clearInterval(cancelPoll);
      await repository.releaseTurnLease?.(chatId, owner).catch(() => {});
    },
  };
}
