/**
 * The turns of one chat service: claims a chat's turn record (its lease and fencing token), runs each
 * turn in the background (`background-turn.ts`), lets any client follow any chat's current turn
 * (`turn-follower.ts`), and cancels turns here or on other instances.
 *
 * Guarantees:
 * - One turn at a time per chat: in this process by its own map (checked and set with no await in
 *   between), across instances by the repository's claim. A running turn whose lease lapsed or whose holder
 *   is provably dead (`turn-holder.ts`) is taken over; a live one never is.
 * - With a `userTurnLimit`, a claim past the chat owner's limit is refused by the repository before anything
 *   is written (`too_many_turns`, retry after {@link TURN_LIMIT_RETRY_AFTER_SECONDS}); the chat stays free.
 * - A turn is acknowledged (its follower returned, so its stream can start) only once its record and
 *   everything `prepare` commits (the user's message) are committed; a fenced refusal before that is
 *   `turn_not_started`, and the claimed record is ended as an error.
 * - A cancel answers `cancelled: true` only when a live turn was asked to stop and did (here) or its
 *   holder confirmed it within the confirmation window (elsewhere); otherwise `cancelled: false` with
 *   the reason.
 */

import { ChatError } from '../chat/chat-errors.ts';
import type { TurnEvent } from '../contracts/turn-event.ts';
import { BackgroundTurn } from './background-turn.ts';
import { TurnFencedError } from './turn-fence.ts';
import { followTurn, isTurnAbandoned, LOST_TURN_MESSAGE, type TurnFollower } from './turn-follower.ts';
import { createTurnHolder, isHolderProvablyDead } from './turn-holder.ts';
import type { TurnRecord, TurnRepository } from './turn-repository.ts';
import { REAL_TURN_TIMERS, type TurnTimers } from './turn-timers.ts';
import type { TurnTiming } from './turn-timing.ts';
import { UserTurnLimitError } from './user-turn-limit-error.ts';
import { LocalWakeUps, WakeUpLatch, type WakeUpSource } from './wake-up-source.ts';

/** How long a cancel of a turn on another instance waits for that instance to stop it. */
const CANCEL_CONFIRM_MILLISECONDS = 5_000;

export const BUSY_MESSAGE = 'This chat is already running a turn; wait for it to end or cancel it.';

/**
 * What a client refused by the user's turn limit is told to wait before trying again. Fixed: when one
 * of the user's turns ends cannot be known (a lease's expiry says only when a dead holder's turn stops
 * counting), and a few seconds is short next to a turn and long next to a claim.
 */
export const TURN_LIMIT_RETRY_AFTER_SECONDS = 5;

/** The refusal of a turn past the user's limit (`MANGO_USER_MAX_TURNS`). */
export function tooManyTurns(limit: number): ChatError {
  return new ChatError(
    'too_many_turns',
    `You are already running ${limit} turns, the most one user may run at once (MANGO_USER_MAX_TURNS=${limit}); ` +
      'wait for one of them to end or cancel one, then send the message again. Nothing was kept.',
    { retryAfterSeconds: TURN_LIMIT_RETRY_AFTER_SECONDS },
  );
}

export const NOT_STARTED_MESSAGE =
  'The turn could not start: its message could not be saved while this instance held the chat (its lease was lost or the database could not be reached). Nothing was kept; send the message again.';

export interface CancelTurnOutcome {
  cancelled: boolean;
  /** Why nothing was cancelled. */
  reason?: string;
}

export interface TurnCoordinatorOptions {
  store: TurnRepository;
  timing: TurnTiming;
  now: () => number;
  log: (line: string) => void;
  /** What every wait of its turns, followers, cancels and drain runs on (default: real). */
  timers?: TurnTimers;
  /** Most turns one user may run at once, across instances (`MANGO_USER_MAX_TURNS`); absent: no limit. */
  userTurnLimit?: number;
  /** How cancels and persisted events reach their waiters on any instance (default: this process only). */
  wakeUps?: WakeUpSource;
}

/** How the coordinator learns that a chat is gone (the service's own lookup and error). */
export interface ChatPresence {
  exists: () => Promise<boolean>;
  notFound: () => Error;
}

/**
 * What the caller builds once the chat is claimed: the turn's event stream. Whatever the turn's client
 * must find stored once it is acknowledged (the user's message) is committed before it resolves.
 */
export type PrepareTurn = (run: BackgroundTurn) => Promise<AsyncGenerator<TurnEvent, void>>;

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

export class TurnCoordinator {
  readonly #options: TurnCoordinatorOptions;
  readonly #holder = createTurnHolder();
  readonly #runs = new Map<string, BackgroundTurn>();
  readonly #claiming = new Set<string>();
  readonly #timers: TurnTimers;
  /** Where its turns, followers and cancels are woken; the service's approvals use it too. */
  readonly wakeUps: WakeUpSource;

  constructor(options: TurnCoordinatorOptions) {
    this.#options = options;
    this.#timers = options.timers ?? REAL_TURN_TIMERS;
    this.wakeUps = options.wakeUps ?? new LocalWakeUps();
  }

  isRunning(chatId: string): boolean {
    return this.#runs.has(chatId) || this.#claiming.has(chatId);
  }

  /**
   * Claims the chat and starts the turn in the background; the returned follower replays it from the
   * start.
   * @throws ChatError `busy` when a turn runs here or on another instance; `presence.notFound()` when
   * the chat was deleted since it was looked up.
   */
  async start(chatId: string, prepare: PrepareTurn, presence: ChatPresence): Promise<TurnFollower> {
    if (this.isRunning(chatId)) throw new ChatError('busy', BUSY_MESSAGE);
    this.#claiming.add(chatId);
    let run: BackgroundTurn;
    try {
      run = await this.#claim(chatId, presence);
    } finally {
      this.#claiming.delete(chatId);
    }
    this.#runs.set(chatId, run);
    let events: AsyncGenerator<TurnEvent, void>;
    try {
      events = await prepare(run);
    } catch (error) {
      this.#runs.delete(chatId);
      const now = this.#options.now();
      await this.#options.store
        .finishTurn(
          { turnId: run.record.id, fencingToken: run.record.fencingToken, now: iso(now) },
          {
            state: 'error',
            endedAt: iso(now),
            error: { message: `The turn could not start: ${String(error)}` },
          },
        )
        .catch(() => {});
      if (!(error instanceof TurnFencedError)) throw error;
      // A chat deleted meanwhile took its turn record with it: that is the chat's 404, not a fault.
      if (!(await presence.exists())) throw presence.notFound();
      throw new ChatError('turn_not_started', NOT_STARTED_MESSAGE);
    }
    run.startTimers();
    const stopWaking = this.#wakeWhileRunning(run);
    void run.drive(events).finally(() => {
      stopWaking();
      if (this.#runs.get(chatId) === run) this.#runs.delete(chatId);
    });
    return this.#follow(run.record.id, 0, run);
  }

  async #claim(chatId: string, presence: ChatPresence): Promise<BackgroundTurn> {
    const { store, timing } = this.#options;
    const now = this.#options.now();
    let record: Awaited<ReturnType<TurnRepository['claimTurn']>>;
    try {
      const running = await store.latestTurn(chatId);
      const dead =
        running?.state === 'running' && isHolderProvablyDead(running.holder) ? running.id : undefined;
      record = await store.claimTurn({
        chatId,
        turnId: crypto.randomUUID(),
        holder: this.#holder,
        now: iso(now),
        leaseExpiresAt: iso(now + timing.leaseMilliseconds),
        deadTurnId: dead,
        userTurnLimit: this.#options.userTurnLimit,
      });
    } catch (error) {
      if (error instanceof UserTurnLimitError) throw tooManyTurns(error.limit);
      // A chat deleted during the claim fails its foreign key: that is a 404, not a 500.
      if (!(await presence.exists())) throw presence.notFound();
      throw error;
    }
    if (!record) {
      if (!(await presence.exists())) throw presence.notFound();
      throw new ChatError('busy', BUSY_MESSAGE);
    }
    return new BackgroundTurn({
      store,
      record,
      // Pushed cancels wake the run at once; its own poll is then only the safety net.
      timing: this.wakeUps.pushing
        ? {
            ...timing,
            cancelPollMilliseconds: Math.max(
              timing.cancelPollMilliseconds,
              this.wakeUps.fallbackPollMilliseconds,
            ),
          }
        : timing,
      now: this.#options.now,
      log: this.#options.log,
      timers: this.#timers,
    });
  }

  /**
   * Wakes the run at a cancel another instance recorded, and the followers of other instances at each
   * batch it persisted and at its recorded end. The persisted seq is compared before each wait, so a
   * batch persisted while this loop was between two waits is announced too. @returns the unsubscribe.
   */
  #wakeWhileRunning(run: BackgroundTurn): () => void {
    const id = run.record.id;
    const unsubscribe = this.wakeUps.subscribe('cancel', id, () => void run.pollCancel());
    void (async () => {
      for (let seen = run.persisted.seq; ; ) {
        if (run.persisted.seq !== seen || run.finished) {
          seen = run.persisted.seq;
          this.wakeUps.notify('turn', id);
        }
        if (run.finished) return;
        await run.changed();
      }
    })();
    return unsubscribe;
  }

  /**
   * The chat's newest turn record. A running one whose holder is gone is reported as it will be once
   * someone notices (`lost`), and is marked so.
   */
  async current(chatId: string): Promise<TurnRecord | undefined> {
    const { store } = this.#options;
    const latest = await store.latestTurn(chatId);
    const now = this.#options.now();
    if (latest && !this.#runs.has(chatId) && isTurnAbandoned(latest, now)) {
      const dead = isHolderProvablyDead(latest.holder) ? latest.id : undefined;
      await store.markTurnLost(chatId, iso(now), LOST_TURN_MESSAGE, dead);
      return store.getTurn(latest.id);
    }
    return latest;
  }

  /** Follows the chat's newest turn from `afterSeq`; undefined when the chat never ran one. */
  async follow(chatId: string, afterSeq: number): Promise<TurnFollower | undefined> {
    const local = this.#runs.get(chatId);
    if (local) return this.#follow(local.record.id, afterSeq, local);
    const latest = await this.#options.store.latestTurn(chatId);
    return latest ? this.#follow(latest.id, afterSeq, undefined) : undefined;
  }

  #follow(turnId: string, afterSeq: number, local: BackgroundTurn | undefined): TurnFollower {
    return followTurn({
      store: this.#options.store,
      turnId,
      afterSeq,
      local,
      pollMilliseconds: this.#options.timing.followPollMilliseconds,
      now: this.#options.now,
      timers: this.#timers,
      wakeUps: this.wakeUps,
    });
  }

  async cancel(chatId: string): Promise<CancelTurnOutcome> {
    const local = this.#runs.get(chatId);
    if (local) {
      local.controller.abort();
      return { cancelled: true };
    }
    const { store, timing } = this.#options;
    const latest = await store.latestTurn(chatId);
    if (latest?.state !== 'running') return { cancelled: false, reason: 'No turn is running in this chat.' };
    const now = this.#options.now();
    if (isTurnAbandoned(latest, now)) {
      const dead = isHolderProvablyDead(latest.holder) ? latest.id : undefined;
      await store.markTurnLost(chatId, iso(now), LOST_TURN_MESSAGE, dead);
      return {
        cancelled: false,
        reason:
          'The instance that ran the turn is gone (it stopped renewing its lease); nothing was running, and the chat is free again.',
      };
    }
    // Subscribed before the request: the end the holder records may come at once.
    const ended = new WakeUpLatch(this.wakeUps, 'turn', latest.id);
    try {
      if (!(await store.requestTurnCancel(latest.id, iso(now)))) {
        return { cancelled: false, reason: 'The turn ended before the cancel arrived.' };
      }
      this.wakeUps.notify('cancel', latest.id);
      // The holder is woken (or polls) for the request; wait (bounded) for it to confirm by ending the turn.
      const timers = this.#timers;
      const deadline = timers.monotonic() + Math.min(timing.leaseMilliseconds, CANCEL_CONFIRM_MILLISECONDS);
      while (timers.monotonic() < deadline) {
        await ended.wait(timers, timing.cancelPollMilliseconds / 2);
        const record = await store.getTurn(latest.id);
        if (record?.state !== 'running') return { cancelled: true };
      }
    } finally {
      ended.close();
    }
    return {
      cancelled: false,
      reason: 'The cancel was recorded, but the instance running the turn has not stopped it yet.',
    };
  }

  /** Cancels every turn this process runs (shutdown). @returns how many were running. */
  cancelAll(): number {
    for (const run of this.#runs.values()) run.controller.abort();
    return this.#runs.size;
  }

  /**
   * Waits until every turn of this process recorded its end, for at most `timeoutMilliseconds`; then
   * stops their retries (their leases expire on their own).
   */
  async drain(timeoutMilliseconds: number): Promise<void> {
    const runs = [...this.#runs.values()];
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => {
      timer = this.#timers.setTimeout(resolve, timeoutMilliseconds);
    });
    await Promise.race([Promise.all(runs.map((run) => run.ended)), timeout]);
    this.#timers.clearTimeout(timer);
    for (const run of runs) run.abandon();
  }
}
