/**
 * The writing side of a turn's event log: numbers events 1, 2, 3… and writes them in order through
 * the given (fenced, retrying) write, one batch at a time.
 *
 * Guarantees:
 * - Events are written in the order published, each seq once; a batch's seqs are fixed before its
 *   first attempt, so a retried batch is the same batch.
 * - While a batch is being written, new events wait and are written as the next batch; consecutive
 *   text deltas (and argument deltas of one call) among them are merged up to 64 KiB, so a fast model
 *   costs a few writes per batch rather than one per token.
 * - Memory is bounded: past 8 MiB of unwritten events, `publish` waits for the write in flight.
 * - Once a write failed (the turn was lost), every later `publish` and `flushAll` rejects with it.
 * - The latest written events (up to 1 MiB of JSON) stay readable from memory, so clients of this
 *   process following the turn live cost no database read per batch; only written events are there.
 */

import type { TurnEvent } from '../contracts/turn-event.ts';
import { serializeTurnEvent } from './turn-event-json.ts';
import type { StoredTurnEvent } from './turn-repository.ts';

/** Events merged into one stored event stay below this many characters of delta. */
const MAX_MERGED_DELTA = 64 * 1024;
/** Unwritten events beyond this many bytes make the turn wait for the database. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;
/** JSON bytes of written events kept in memory for live followers. */
const TAIL_BYTES = 1024 * 1024;
/** What an event without a delta counts for in the pending budget. */
const EVENT_OVERHEAD_BYTES = 256;

function mergeable(last: TurnEvent | undefined, next: TurnEvent): boolean {
  if (last?.type === 'text_delta' && next.type === 'text_delta') {
    return last.delta.length + next.delta.length <= MAX_MERGED_DELTA;
  }
  if (last?.type === 'tool_call_arguments_delta' && next.type === 'tool_call_arguments_delta') {
    return last.callId === next.callId && last.delta.length + next.delta.length <= MAX_MERGED_DELTA;
  }
  return false;
}

function merged(last: TurnEvent, next: TurnEvent): TurnEvent {
  if (last.type === 'text_delta' && next.type === 'text_delta') {
    return { type: 'text_delta', delta: `${last.delta}${next.delta}` };
  }
  if (last.type === 'tool_call_arguments_delta' && next.type === 'tool_call_arguments_delta') {
    return { ...last, delta: `${last.delta}${next.delta}` };
  }
  return last;
}

export class TurnEventLog {
  readonly #write: (batch: StoredTurnEvent[]) => Promise<void>;
  readonly #onPersisted: () => void;
  #pending: TurnEvent[] = [];
  #pendingBytes = 0;
  #flushing: Promise<void> | undefined;
  #failure: unknown;
  #seq = 0;
  #offset = 0;
  #persisted = { seq: 0, endOffset: 0 };
  /** Written events, oldest first, within `TAIL_BYTES` of the newest. */
  #tail: StoredTurnEvent[] = [];

  /** @param onPersisted called after each batch is written (followers wake up). */
  constructor(write: (batch: StoredTurnEvent[]) => Promise<void>, onPersisted: () => void) {
    this.#write = write;
    this.#onPersisted = onPersisted;
  }

  /** The last seq and cumulative JSON length the database holds. */
  get persisted(): { seq: number; endOffset: number } {
    return this.#persisted;
  }

  async publish(event: TurnEvent): Promise<void> {
    if (this.#failure !== undefined) throw this.#failure;
    const last = this.#pending.at(-1);
    if (last !== undefined && mergeable(last, event))
      this.#pending[this.#pending.length - 1] = merged(last, event);
    else this.#pending.push(event);
    this.#pendingBytes += 'delta' in event ? event.delta.length : EVENT_OVERHEAD_BYTES;
    this.#flushing ??= this.#flushLoop();
    if (this.#pendingBytes > MAX_PENDING_BYTES) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  /**
   * Written events after `afterSeq` (at most `limit`) from memory; undefined when some of them are no
   * longer held (read them from the database).
   */
  written(afterSeq: number, limit: number): StoredTurnEvent[] | undefined {
    const first = this.#tail[0];
    if (afterSeq >= this.#persisted.seq) return [];
    if (first === undefined || first.seq > afterSeq + 1) return undefined;
    const start = afterSeq + 1 - first.seq;
    return this.#tail.slice(start, start + limit);
  }

  /** Resolves once everything published is written. */
  async flushAll(): Promise<void> {
    while (this.#flushing) await this.#flushing;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #flushLoop(): Promise<void> {
    try {
      while (this.#pending.length > 0) {
        const events = this.#pending;
        this.#pending = [];
        this.#pendingBytes = 0;
        const batch: StoredTurnEvent[] = events.map((event) => {
          this.#seq += 1;
          this.#offset += serializeTurnEvent(event).length;
          return { seq: this.#seq, endOffset: this.#offset, event };
        });
        await this.#write(batch);
        const end = batch.at(-1)!;
        this.#persisted = { seq: end.seq, endOffset: end.endOffset };
        this.#tail.push(...batch);
        const oldest = this.#tail.findIndex((stored) => end.endOffset - stored.endOffset < TAIL_BYTES);
        if (oldest > 0) this.#tail.splice(0, oldest);
        this.#onPersisted();
      }
    } catch (error) {
      this.#failure = error;
      this.#pending = [];
    } finally {
      this.#flushing = undefined;
    }
  }
}
