/**
 * Wake-ups across the instances of one PostgreSQL database by LISTEN/NOTIFY (`WakeUpSource`).
 *
 * - One channel, `mango_wake_ups`; a payload is `<instance>|<topic>|<key>`. A notify wakes this
 *   process's listeners at once and is sent to the others with `pg_notify` after the write it
 *   announces committed (the caller notifies after its write), so a woken waiter reads it.
 * - Sends are coalesced per (topic, key): while one is in flight, later ones collapse into one more,
 *   so a turn streaming many batches costs at most one outstanding NOTIFY.
 * - `pushing` is true only while the listener is known to work: Bun's listener reconnects on its own
 *   but says nothing when it drops, so every `heartbeatMilliseconds` the instance notifies itself and
 *   counts the listener lost when no heartbeat came back within two periods. Losing or regaining it
 *   wakes every listener once (what was sent meanwhile may have been missed), and waiters poll at their
 *   own intervals while it is lost.
 * - A failed send is logged, never thrown: waiters still find the change at their fallback poll.
 */
import type { WakeUpSource, WakeUpTopic } from '../turns/wake-up-source.ts';
import { WakeUpListeners } from '../turns/wake-up-source.ts';
import type { Database } from './database.ts';

export const WAKE_UP_CHANNEL = 'mango_wake_ups';
const TOPICS: readonly WakeUpTopic[] = ['approval', 'cancel', 'turn'];
const HEARTBEAT = 'heartbeat';

export interface PostgresWakeUpsOptions {
  /** This instance's id (heartbeats and its own notifies carry it). */
  instanceId: string;
  /** While pushing, how often waiters still read anyway (`MANGO_WAKE_UP_POLL_MS`). */
  fallbackPollMilliseconds: number;
  /** How often the listener's health is checked (default 1 s). */
  heartbeatMilliseconds?: number;
  log?: (line: string) => void;
}

export class PostgresWakeUps implements WakeUpSource {
  readonly #database: Database;
  readonly #options: PostgresWakeUpsOptions;
  readonly #listeners = new WakeUpListeners();
  readonly #sending = new Map<string, { again: boolean }>();
  readonly fallbackPollMilliseconds: number;
  #pushing = false;
  #lastHeartbeatAt = 0;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #subscription: { unlisten(): Promise<void> } | undefined;
  #closed = false;
  #listens = 0;

  private constructor(database: Database, options: PostgresWakeUpsOptions) {
    this.#database = database;
    this.#options = options;
    this.fallbackPollMilliseconds = options.fallbackPollMilliseconds;
  }

  /** Listens on the channel; resolves once PostgreSQL acknowledged it. */
  static async start(database: Database, options: PostgresWakeUpsOptions): Promise<PostgresWakeUps> {
    if (database.dialect !== 'postgres') throw new Error('LISTEN/NOTIFY wake-ups need PostgreSQL.');
    const source = new PostgresWakeUps(database, options);
    source.#subscription = await database.sql.listen(
      WAKE_UP_CHANNEL,
      (payload) => source.#received(payload),
      () => source.#listening(),
    );
    const period = options.heartbeatMilliseconds ?? 1_000;
    source.#heartbeat = setInterval(() => source.#beat(period), period);
    return source;
  }

  get pushing(): boolean {
    return this.#pushing;
  }

  /** How many times the listener was (re)established: 1 after start, one more per reconnect. */
  get listens(): number {
    return this.#listens;
  }

  subscribe(topic: WakeUpTopic, key: string, listener: () => void): () => void {
    return this.#listeners.subscribe(topic, key, listener);
  }

  notify(topic: WakeUpTopic, key: string): void {
    this.#listeners.wake(topic, key);
    this.#send(`${topic}|${key}`);
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#heartbeat);
    this.#setPushing(false);
    await this.#subscription?.unlisten().catch(() => {});
  }

  #send(message: string): void {
    if (this.#closed) return;
    const sending = this.#sending.get(message);
    if (sending) {
      sending.again = true;
      return;
    }
    const state = { again: false };
    this.#sending.set(message, state);
    const payload = `${this.#options.instanceId}|${message}`;
    const loop = async () => {
      do {
        state.again = false;
        try {
          await this.#database.sql`SELECT pg_notify(${WAKE_UP_CHANNEL}, ${payload})`;
        } catch (error) {
          if (!this.#closed) {
            this.#options.log?.(
              `Sending a wake-up failed (waiters find it at their next poll): ${error instanceof Error ? error.message : String(error)}`,
            );
          }
          break;
        }
      } while (state.again && !this.#closed);
      this.#sending.delete(message);
    };
    void loop();
  }

  #received(payload: string): void {
    const [instance, topic, ...rest] = payload.split('|');
    const key = rest.join('|');
    if (topic === HEARTBEAT) {
      if (instance === this.#options.instanceId) {
        this.#lastHeartbeatAt = performance.now();
        this.#setPushing(true);
      }
      return;
    }
    // This instance woke its own listeners when it sent it.
    if (instance === this.#options.instanceId) return;
    if (TOPICS.includes(topic as WakeUpTopic)) this.#listeners.wake(topic as WakeUpTopic, key);
  }

  #listening(): void {
    this.#listens += 1;
    this.#lastHeartbeatAt = performance.now();
    if (this.#pushing) this.#listeners.wakeAll();
    this.#setPushing(true);
  }

  #beat(period: number): void {
    if (this.#closed) return;
    if (this.#pushing && performance.now() - this.#lastHeartbeatAt > 2 * period) {
      this.#options.log?.('The wake-up listener stopped answering; waiting turns poll until it is back.');
      this.#setPushing(false);
    }
    this.#send(HEARTBEAT);
  }

  #setPushing(pushing: boolean): void {
    if (this.#pushing === pushing) return;
    this.#pushing = pushing;
    this.#listeners.wakeAll();
  }
}
