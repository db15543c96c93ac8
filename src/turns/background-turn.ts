/**
 * One turn running in this process, driven to its end independently of any client.
 *
 * Guarantees:
 * - The turn runs until it ends or is cancelled (`cancel()`, a cancel recorded in the turn record by
 *   another instance, server shutdown); no client's coming or going affects it.
 * - Every event is persisted to the turn record's event log in order (`turn-event-log.ts`). Clients
 *   read only persisted events, so a replay and a live stream are the same sequence.
 * - Every write (events, messages, renewals) is fenced (`turn-repository.ts`). A write refused by the fence,
 *   a renewal refused, or the lease lapsing on this instance's clock while the database cannot be
 *   reached makes the turn lost: its tools are cancelled, nothing more is written, and its local
 *   clients end with `done{error}` saying why. A failed write is retried while the lease still holds,
 *   so a short database outage costs nothing.
 * - The end is recorded (`finishTurn`) with retries until it succeeds, another turn took over, or the
 *   server gives up at shutdown; the chat is free again as soon as it is recorded.
 */
import type { ChatMessage } from '../chat/chat-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { TurnDoneEvent, TurnEvent } from '../contracts/turn-event.ts';
import { errorMessage } from '../errors/error-message.ts';
import { TurnEventLog } from './turn-event-log.ts';
import { type TurnFence, TurnFencedError } from './turn-fence.ts';
import type { FinishTurnInput, StoredTurnEvent, TurnRecord, TurnRepository } from './turn-repository.ts';
import { REAL_TURN_TIMERS, sleepOn, type TurnTimers } from './turn-timers.ts';
import type { TurnTiming } from './turn-timing.ts';
import { TurnTraceRecorder } from './turn-trace.ts';

export const LOST_LEASE_MESSAGE =
  'This instance lost the turn lease (it was paused or cut off from the database longer than the lease, or another instance took the chat over); the turn was stopped and nothing more was written.';

export interface BackgroundTurnOptions {
  store: TurnRepository;
  record: TurnRecord;
  timing: TurnTiming;
  now: () => number;
  log: (line: string) => void;
  /** The renewal and cancel-poll intervals, retry pauses and the monotonic clock (default: real). */
  timers?: TurnTimers;
}

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

export class BackgroundTurn {
  readonly record: TurnRecord;
  readonly controller = new AbortController();
  readonly #store: TurnRepository;
  readonly #timing: TurnTiming;
  readonly #now: () => number;
  readonly #log: (line: string) => void;
  readonly #timers: TurnTimers;
  #leaseConfirmedUntil: number;
  #lostReason: string | undefined;
  readonly #events: TurnEventLog;
  #terminal: TurnDoneEvent | undefined;
  #finished = false;
  #abandoned = false;
  /** Item writes still retrying (a tool result written while the database was away). */
  readonly #pendingWrites = new Set<Promise<unknown>>();
  #renewing = false;
  #lastTickAt: number;
  #wake: (() => void)[] = [];
  readonly #intervals: unknown[] = [];
  readonly ended: Promise<void>;
  #resolveEnded: () => void = () => {};
  /** Rejects when the turn is lost, so a hanging write stops waiting. */
  readonly #lostSignal: Promise<never>;
  #rejectLost: (error: Error) => void = () => {};
  #lostError: TurnFencedError | undefined;
  readonly #trace = new TurnTraceRecorder();

  constructor(options: BackgroundTurnOptions) {
    this.record = options.record;
    this.#store = options.store;
    this.#timing = options.timing;
    this.#now = options.now;
    this.#log = options.log;
    this.#timers = options.timers ?? REAL_TURN_TIMERS;
    this.#lastTickAt = this.#timers.monotonic();
    this.#events = new TurnEventLog(
      (batch) => this.#write((fence) => this.#store.appendTurnEvents(fence, batch)),
      () => this.#notify(),
    );
    this.#leaseConfirmedUntil = Date.parse(options.record.leaseExpiresAt ?? options.record.startedAt);
    this.ended = new Promise((resolve) => {
      this.#resolveEnded = resolve;
    });
    this.#lostSignal = new Promise<never>((_resolve, reject) => {
      this.#rejectLost = reject;
    });
    this.#lostSignal.catch(() => {});
  }

  get chatId(): string {
    return this.record.chatId;
  }

  /** Events the database holds after `afterSeq`, from memory when still held there (see the log). */
  writtenEvents(afterSeq: number, limit: number): StoredTurnEvent[] | undefined {
    return this.#events.written(afterSeq, limit);
  }

  /** The last event seq and byte offset the database holds. */
  get persisted(): { seq: number; endOffset: number } {
    return this.#events.persisted;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** The final event when it could not be persisted (lost lease, unreachable database). */
  get terminal(): TurnDoneEvent | undefined {
    return this.#terminal;
  }

  /** Resolves when the turn is lost (never when it ends normally). */
  get lost(): Promise<void> {
    return this.#lostSignal.then(
      () => {},
      () => {},
    );
  }

  /** Resolves at the next persisted batch or at the end of the turn. */
  changed(): Promise<void> {
    if (this.#finished) return Promise.resolve();
    return new Promise((resolve) => this.#wake.push(resolve));
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const resolve of waiting) resolve();
  }

  #fence(at = this.#now()): TurnFence {
    return { turnId: this.record.id, fencingToken: this.record.fencingToken, now: iso(at) };
  }

  /** Ends the turn on this instance because it no longer holds the chat. */
  #lose(reason: string): void {
    if (this.#lostReason !== undefined) return;
    this.#lostReason = reason;
    this.#log(`Turn ${this.record.id} of chat ${this.chatId} stopped: ${reason}`);
    // Clients learn at once; the write under way (if any) and the end are recorded in the background.
    this.#terminal = { type: 'done', reason: 'error', message: reason };
    this.#lostError = new TurnFencedError(reason);
    this.#rejectLost(this.#lostError);
    this.controller.abort();
    this.#notify();
  }

  /**
   * A fenced write, retried while the lease holds. A write already under way when the turn is lost is
   * finished (retried with the token-only fence until it lands or is refused), so what the turn
   * produced before it stopped is stored exactly once or not at all, never depending on timing; a
   * write asked for after the loss is refused at once.
   * @throws TurnFencedError once the turn is lost (or refused by the fence).
   */
  async #write<T>(
    operation: (fence: TurnFence) => Promise<T>,
    retryable: (error: unknown) => boolean = () => true,
  ): Promise<T> {
    if (this.#lostReason !== undefined) throw new TurnFencedError(this.#lostReason);
    // Real elapsed time as well as the lease clock: a write that keeps failing stops the turn after
    // one lease period even when the injected clock stands still.
    const firstTry = this.#timers.monotonic();
    for (;;) {
      const draining = this.#lostReason !== undefined;
      const attempt = operation(draining ? { ...this.#fence(), requireLiveLease: false } : this.#fence());
      try {
        if (draining) return await attempt;
        attempt.catch(() => {});
        // An unreachable database may make the attempt hang: the turn must still stop on time.
        return await Promise.race([attempt, this.#lostSignal]);
      } catch (error) {
        if (!(error instanceof TurnFencedError) && !retryable(error)) throw error;
        if (error instanceof TurnFencedError && error !== this.#lostError) {
          this.#lose(LOST_LEASE_MESSAGE);
          throw new TurnFencedError(this.#lostReason);
        }
        if (error === this.#lostError) {
          // Lost while this attempt was pending: let it finish, then drain as above.
          try {
            return await attempt;
          } catch (pending) {
            if (pending instanceof TurnFencedError) throw new TurnFencedError(this.#lostReason);
          }
        } else if (!draining) {
          const outlasted = this.#timers.monotonic() - firstTry > this.#timing.leaseMilliseconds;
          if (this.#now() > this.#leaseConfirmedUntil || outlasted) {
            this.#lose(
              `The database could not be reached before the turn lease expired (${errorMessage(error)}); the turn was stopped.`,
            );
          }
        }
        if (this.#abandoned) throw new TurnFencedError(this.#lostReason);
        await sleepOn(this.#timers, this.#timing.retryMilliseconds);
      }
    }
  }

  /** Starts renewing the lease and watching for a cancel another instance recorded. */
  startTimers(): void {
    const timers = this.#timers;
    const renew = timers.setInterval(() => void this.#renew(), this.#timing.renewMilliseconds);
    const poll = timers.setInterval(() => void this.pollCancel(), this.#timing.cancelPollMilliseconds);
    this.#intervals.push(renew, poll);
  }

  #stopTimers(): void {
    for (const interval of this.#intervals) this.#timers.clearInterval(interval);
    this.#intervals.length = 0;
  }

  async #renew(): Promise<void> {
    if (this.#lostReason !== undefined || this.#finished) return;
    // A renewal or write that hangs (an unreachable database often hangs rather than fails) must not
    // keep the turn going past its lease: judged on this instance's clock at every tick.
    const tickAt = this.#timers.monotonic();
    const sinceLastTick = tickAt - this.#lastTickAt;
    this.#lastTickAt = tickAt;
    if (this.#now() > this.#leaseConfirmedUntil) {
      // Ticks that come far too late mean this process did not run (paused, or its event loop was
      // blocked); ticks on time mean the renewals did not get through to the database.
      const paused = sinceLastTick > this.#timing.leaseMilliseconds / 2;
      this.#lose(
        paused
          ? LOST_LEASE_MESSAGE
          : 'The database could not be reached before the turn lease expired; the turn was stopped.',
      );
      return;
    }
    if (this.#renewing) return;
    this.#renewing = true;
    try {
      await this.#renewOnce();
    } finally {
      this.#renewing = false;
    }
  }

  async #renewOnce(): Promise<void> {
    const requested = this.#now();
    const until = requested + this.#timing.leaseMilliseconds;
    try {
      if (await this.#store.renewTurn(this.#fence(requested), iso(until))) {
        this.#leaseConfirmedUntil = Math.max(this.#leaseConfirmedUntil, until);
      } else this.#lose(LOST_LEASE_MESSAGE);
    } catch (error) {
      // Not ignored: the lease still holds until its confirmed expiry; past that the turn stops.
      this.#log(`Renewing the lease of turn ${this.record.id} failed: ${errorMessage(error)}`);
      if (this.#now() > this.#leaseConfirmedUntil) {
        this.#lose(
          `The turn lease could not be renewed before it expired (${errorMessage(error)}); the turn was stopped.`,
        );
      }
    }
  }

  async pollCancel(): Promise<void> {
    if (this.controller.signal.aborted) return;
    const record = await this.#store.getTurn(this.record.id).catch(() => undefined);
    if (record?.cancelRequestedAt) this.controller.abort();
  }

  /** True once the turn was lost (fence refused, lease lapsed): nothing more is written. */
  get isLost(): boolean {
    return this.#lostReason !== undefined;
  }

  /**
   * A write of the turn's own (an approval question) under its fence, with the same retries and lease
   * rules as its events and messages.
   * @throws TurnFencedError once the turn is lost.
   */
  fencedWrite<T>(operation: (fence: TurnFence) => Promise<T>): Promise<T> {
    return this.#write(operation);
  }

  /**
   * A read the turn cannot go on without (the chat's access before a call), retried as a write is
   * while the lease holds, but only for the failures `retryable` names (the database cannot be
   * reached): a short outage then costs the call nothing and a long one stops the turn as a write's
   * would, while any other failure (an access refused) is the caller's at once.
   * @throws the first failure `retryable` refuses; TurnFencedError once the turn is lost.
   */
  retriedRead<T>(operation: () => Promise<T>, retryable: (error: unknown) => boolean): Promise<T> {
    // Unlike a write under way, a read has nothing to finish once the turn is lost.
    const read = async () => {
      if (this.#lostReason !== undefined) throw new TurnFencedError(this.#lostReason);
      return operation();
    };
    return this.#write(read, retryable);
  }

  /** Persists one item (fenced, retried); `replaceFromSeq`: a rerun's (`appendTurnMessage`). */
  saveItem(item: ConversationItem, replaceFromSeq?: number): Promise<ChatMessage> {
    const messageId = crypto.randomUUID();
    const written = this.#write((fence) =>
      this.#store.appendTurnMessage(fence, this.chatId, messageId, item, replaceFromSeq),
    ).then((message) => {
      this.#trace.itemSaved();
      return message;
    });
    this.#pendingWrites.add(written);
    const settled = () => this.#pendingWrites.delete(written);
    written.then(settled, settled);
    return written;
  }

  /** Reads the turn to its end, persisting as it goes, then records how it ended. */
  async drive(events: AsyncGenerator<TurnEvent, void>): Promise<void> {
    const startedAt = this.#now();
    const usage = { modelCalls: 0, inputTokens: 0, outputTokens: 0 };
    let toolMs = 0;
    let final: TurnDoneEvent | undefined;
    try {
      for await (const event of events) {
        if (event.type === 'finish') {
          usage.modelCalls += 1;
          usage.inputTokens += event.usage?.inputTokens ?? 0;
          usage.outputTokens += event.usage?.outputTokens ?? 0;
        }
        if (event.type === 'tool_result') toolMs += event.durationMs;
        if (event.type === 'done') final = event;
        else if (this.#lostReason === undefined) {
          this.#trace.record(event);
          await this.#events.publish(event).catch(() => {});
        }
      }
    } catch (error) {
      final = { type: 'done', reason: 'error', message: `The turn failed: ${errorMessage(error)}` };
    }
    final ??= { type: 'done', reason: 'error', message: 'The turn ended without a final event.' };
    if (this.#lostReason !== undefined) final = { type: 'done', reason: 'error', message: this.#lostReason };
    else {
      try {
        await this.#events.publish(final);
        await this.#events.flushAll();
      } catch {
        final = { type: 'done', reason: 'error', message: this.#lostReason ?? final.message ?? 'Lost.' };
        this.#terminal = final;
      }
    }
    if (this.#lostReason !== undefined) this.#terminal = final;
    this.#stopTimers();
    // Clients learn how the turn ended now, not once the database is back to record it.
    if (this.#terminal !== undefined) this.#notify();
    this.#trace.record(final);
    // Also after a lost lease: `finishTurn` applies only while no other turn took over, so a turn cut
    // off by a database outage still records its end (and frees the chat) once the database is back.
    // An item still being written (the loop was stopped while its write waited for the database) lands
    // before the end is recorded: once the end is recorded another turn may start, and its fencing
    // token would refuse the late write, losing work that was done.
    await Promise.allSettled([...this.#pendingWrites]);
    await this.#recordEnd({
      state: final.reason,
      endedAt: iso(this.#now()),
      usage,
      durations: { totalMs: Math.max(0, this.#now() - startedAt), toolMs },
      progress: this.#trace.trace,
      ...(final.reason === 'error' || final.reason === 'cancelled'
        ? { error: { message: final.message ?? final.reason } }
        : {}),
    });
    this.#finished = true;
    this.#notify();
    this.#resolveEnded();
  }

  /** `finishTurn` until it succeeds: a database outage must not leave the chat busy. */
  async #recordEnd(outcome: FinishTurnInput): Promise<void> {
    let delay = this.#timing.retryMilliseconds;
    for (;;) {
      try {
        await this.#store.finishTurn(
          { turnId: this.record.id, fencingToken: this.record.fencingToken, now: outcome.endedAt },
          outcome,
        );
        return; // recorded, or another turn took over (nothing left to release)
      } catch (error) {
        if (this.#abandoned) return;
        this.#log(`Recording the end of turn ${this.record.id} failed, retrying: ${errorMessage(error)}`);
        await sleepOn(this.#timers, delay);
        delay = Math.min(delay * 2, 1_000);
      }
    }
  }

  /** Server shutdown: stop retrying writes that cannot succeed (the lease then expires). */
  abandon(): void {
    this.#abandoned = true;
  }
}
