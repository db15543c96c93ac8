/**
 * Wake-ups of what a turn waits for: an approval answered (`approval`, keyed by the question's id), a
 * cancel recorded (`cancel`, by turn id), events or an end persisted (`turn`, by turn id). A waiter
 * subscribes, then reads the database when woken; the database stays the truth, a wake-up only says
 * "read now".
 *
 * Two implementations: `LocalWakeUps` (below) reaches listeners of this process only, so waiters on
 * other instances poll at their own interval (SQLite, and PostgreSQL before its listener is up); the
 * PostgreSQL one (`src/db/postgres-wake-ups.ts`) also carries them to every instance by LISTEN/NOTIFY.
 * While it is `pushing`, a poll may skip its reads until `fallbackPollMilliseconds` passed since its
 * last one (`pollIsDue`); a source that stops pushing, or pushes again, wakes every listener once, so
 * nothing sent meanwhile waits for the next poll.
 */
import type { TurnTimers } from './turn-timers.ts';

export type WakeUpTopic = 'approval' | 'cancel' | 'turn';

export interface WakeUpSource {
  /** Calls `listener` at each wake-up of (`topic`, `key`), from any instance, until the returned call. */
  subscribe(topic: WakeUpTopic, key: string, listener: () => void): () => void;
  /** Wakes the listeners of (`topic`, `key`) here at once, and on the other instances it reaches. Never throws. */
  notify(topic: WakeUpTopic, key: string): void;
  /** True while wake-ups from other instances arrive; false: waiters poll at their own interval. */
  readonly pushing: boolean;
  /** While `pushing`, how often a waiter still reads anyway. */
  readonly fallbackPollMilliseconds: number;
}

/** Whether a poll whose last read was `sinceLastReadMilliseconds` ago reads now. */
export function pollIsDue(source: WakeUpSource, sinceLastReadMilliseconds: number): boolean {
  return !source.pushing || sinceLastReadMilliseconds >= source.fallbackPollMilliseconds;
}

/** The listeners of each (topic, key), shared by both implementations. */
export class WakeUpListeners {
  readonly #listeners = new Map<string, Set<() => void>>();

  subscribe(topic: WakeUpTopic, key: string, listener: () => void): () => void {
    const id = `${topic}:${key}`;
    let listeners = this.#listeners.get(id);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(id, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(id) === listeners) this.#listeners.delete(id);
    };
  }

  wake(topic: WakeUpTopic, key: string): void {
    for (const listener of [...(this.#listeners.get(`${topic}:${key}`) ?? [])]) listener();
  }

  /** Every listener once (the push path came or went: what it carried meanwhile may be missed). */
  wakeAll(): void {
    for (const listeners of [...this.#listeners.values()]) for (const listener of [...listeners]) listener();
  }
}

/** Wake-ups within this process only: the other instances learn by polling. */
export class LocalWakeUps implements WakeUpSource {
  readonly #listeners = new WakeUpListeners();
  readonly pushing = false;
  readonly fallbackPollMilliseconds = 0;

  subscribe(topic: WakeUpTopic, key: string, listener: () => void): () => void {
    return this.#listeners.subscribe(topic, key, listener);
  }

  notify(topic: WakeUpTopic, key: string): void {
    this.#listeners.wake(topic, key);
  }
}

/**
 * One subscription that remembers a wake-up until it is waited for, so one that arrives between two
 * reads of the waiter is never missed. `wait` resolves at the next wake-up (at once if one came since
 * the last wait) or after its timeout on the given timers.
 */
export class WakeUpLatch {
  #woken = false;
  #release: (() => void) | undefined;
  readonly #unsubscribe: () => void;

  constructor(source: WakeUpSource, topic: WakeUpTopic, key: string) {
    this.#unsubscribe = source.subscribe(topic, key, () => {
      this.#woken = true;
      this.#release?.();
    });
  }

  wait(timers: TurnTimers, milliseconds: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: unknown;
      const release = () => {
        timers.clearTimeout(timer);
        this.#release = undefined;
        this.#woken = false;
        resolve();
      };
      this.#release = release;
      timer = timers.setTimeout(release, milliseconds);
    });
  }

  close(): void {
    this.#unsubscribe();
    this.#release?.();
  }
}
