/**
 * What the turn lifecycle's unit tests share: an in-memory turn store whose methods a test makes fail
 * (a database outage) or hold (a write whose reply has not come back), and a turn's event stream the
 * test feeds by hand.
 */
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import type { TurnFence } from '../../src/turns/turn-fence.ts';
import type { TurnRepository } from '../../src/turns/turn-repository.ts';
import { turnTimingFor } from '../../src/turns/turn-timing.ts';
import { testChat } from './test-chat.ts';

/** What the driver throws while the database is down. */
export const OUTAGE = Object.assign(new Error('Connection closed'), {
  code: 'ERR_POSTGRES_CONNECTION_CLOSED',
});

/** A 3 s lease: renewed every 1 000 ms, cancel polled every 400 ms, writes retried every 150 ms. */
export const LEASE = 3_000;
export const TIMING = turnTimingFor(LEASE);

export const iso = (milliseconds: number) => new Date(milliseconds).toISOString();

type StoreMethod = {
  [K in keyof TurnRepository]: TurnRepository[K] extends (...args: never[]) => unknown ? K : never;
}[keyof TurnRepository];

/** One call that reached the store (or was refused by the outage before it). */
export interface StoreCall {
  method: StoreMethod;
  fence: TurnFence | undefined;
  failed: boolean;
}

/**
 * `inner` with faults: a method in `down` rejects with `OUTAGE` without touching the store; a method in
 * `held` waits until `release` (then runs, or fails with the error given) — the reply of a write that
 * was sent but has not come back.
 */
export function faultyStore(inner: TurnRepository) {
  const down = new Set<StoreMethod>();
  const held = new Map<StoreMethod, { release: (error?: Error) => void }[]>();
  const holding = new Set<StoreMethod>();
  const calls: StoreCall[] = [];
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      const method = property as StoreMethod;
      return async (...args: unknown[]) => {
        const first = args[0];
        const fence =
          typeof first === 'object' && first !== null && 'fencingToken' in first
            ? (first as TurnFence)
            : undefined;
        if (down.has(method)) {
          calls.push({ method, fence, failed: true });
          throw OUTAGE;
        }
        if (holding.has(method)) {
          holding.delete(method);
          const failure = await new Promise<Error | undefined>((resolve) => {
            const list = held.get(method) ?? [];
            list.push({ release: resolve });
            held.set(method, list);
          });
          if (failure !== undefined) {
            calls.push({ method, fence, failed: true });
            throw failure;
          }
        }
        calls.push({ method, fence, failed: false });
        return (value as (...parameters: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return {
    store,
    calls,
    /** The calls of `method` so far. */
    callsOf: (method: StoreMethod) => calls.filter((call) => call.method === method),
    cut: (...methods: StoreMethod[]) => {
      for (const method of methods) down.add(method);
    },
    restore: () => down.clear(),
    /** The next call of `method` waits for `release`. */
    hold: (method: StoreMethod) => holding.add(method),
    /** Lets the held call of `method` go on (or fail with `error`). */
    release: (method: StoreMethod, error?: Error) => {
      const waiting = held.get(method)?.shift();
      if (!waiting) throw new Error(`No call of ${method} is held.`);
      waiting.release(error);
    },
    isHeld: (method: StoreMethod) => (held.get(method)?.length ?? 0) > 0,
  };
}

/** A turn's events as the test sends them; ends when the test closes it. */
export function eventChannel() {
  const queued: TurnEvent[] = [];
  let closed = false;
  let wake: (() => void) | undefined;
  let pulls = 0;
  async function* events(): AsyncGenerator<TurnEvent, void> {
    for (;;) {
      pulls += 1;
      while (queued.length === 0 && !closed) await new Promise<void>((resolve) => (wake = resolve));
      const next = queued.shift();
      if (next === undefined) return;
      yield next;
    }
  }
  const poke = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  return {
    events: events(),
    send: (...events: TurnEvent[]) => {
      queued.push(...events);
      poke();
    },
    close: () => {
      closed = true;
      poke();
    },
    /** How many times the turn asked for its next event. */
    pulls: () => pulls,
  };
}

/** A repository with the chat `chat` created at `createdAt`. */
export async function repositoryWithChat(createdAt: number): Promise<InMemoryChatRepository> {
  const repository = new InMemoryChatRepository();
  await repository.createChat(testChat('chat', iso(createdAt)));
  return repository;
}

/** Every event of a follower until it ends. */
export async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/**
 * Claims turn `turnId` of the test chat for `holder` at `now`, with a lease of {@link LEASE}; the
 * record, or undefined when the chat is busy.
 */
export function claimTestTurn(
  repository: InMemoryChatRepository,
  now: number,
  holder: string,
  turnId = 'turn',
): ReturnType<InMemoryChatRepository['turns']['claimTurn']> {
  return repository.turns.claimTurn({
    chatId: 'chat',
    turnId,
    holder,
    now: iso(now),
    leaseExpiresAt: iso(now + LEASE),
  });
}
