/**
 * Fair shares of one instance's tool calls: at most `limit` calls of one user run at once, whatever
 * started them (chat turns, MCP sessions, the CLI in process), so one tenant cannot take every worker
 * of a shared server. The count is this process's own: instances sharing a database each allow
 * `limit` (docs/decisions/2026-12-02-user-concurrency-caps.md).
 *
 * Guarantees:
 * - A call past the limit waits, and the user's waiting calls get slots in the order they asked
 *   (FIFO): a freed slot is handed to the oldest waiter in the same step, so no later call overtakes it.
 * - A waiter whose signal fires leaves the queue at once and is never granted a slot.
 * - A slot is given back once however often `release` is called.
 * - Users never share a queue: a user at the limit delays nobody else.
 */
import type { ToolProgressEvent } from '../contracts/tool-progress-event.ts';

/** The variable that sets the limit (`src/config/environment-variables.ts`), named in what users see. */
export const USER_TOOL_CALL_LIMIT_VARIABLE = 'MANGO_USER_MAX_TOOL_CALLS';

/** A granted slot; `release` gives it back (idempotent). */
export interface CallSlot {
  release(): void;
}

/** Told once when a call has to wait: how many of the user's calls run and wait ahead of it. */
export type SlotWaitListener = (wait: { running: number; ahead: number; limit: number }) => void;

interface UserSlots {
  running: number;
  waiting: ((slot: CallSlot) => void)[];
}

export class UserCallSlots {
  readonly limit: number;
  readonly #users = new Map<string, UserSlots>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(
        `The tool call limit per user must be a whole number of at least 1, got ${limit}.`,
      );
    }
    this.limit = limit;
  }

  /** How many of the user's calls hold a slot now. */
  running(userId: string): number {
    return this.#users.get(userId)?.running ?? 0;
  }

  /** How many of the user's calls wait for a slot now. */
  waiting(userId: string): number {
    return this.#users.get(userId)?.waiting.length ?? 0;
  }

  /**
   * A slot for one call of `userId`: at once when one is free and none of the user's calls waits,
   * otherwise when the calls ahead of it have had theirs. `onWait` hears once that the call waits.
   * @returns undefined when `signal` fired before a slot was granted (the call left the queue).
   */
  acquire(userId: string, signal?: AbortSignal, onWait?: SlotWaitListener): Promise<CallSlot | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    let user = this.#users.get(userId);
    if (!user) {
      user = { running: 0, waiting: [] };
      this.#users.set(userId, user);
    }
    if (user.running < this.limit && user.waiting.length === 0) {
      user.running += 1;
      return Promise.resolve(this.#slot(userId));
    }
    const queue = user.waiting;
    return new Promise((resolve) => {
      const onAbort = () => {
        const index = queue.indexOf(grant);
        if (index >= 0) queue.splice(index, 1);
        resolve(undefined);
      };
      const grant = (slot: CallSlot) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(slot);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(grant);
      onWait?.({ running: user.running, ahead: queue.length - 1, limit: this.limit });
    });
  }

  #slot(userId: string): CallSlot {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#release(userId);
      },
    };
  }

  #release(userId: string): void {
    const user = this.#users.get(userId);
    if (!user) return;
    const next = user.waiting.shift();
    // Handed over rather than freed: the running count stays, and no newcomer can take it meanwhile.
    if (next) next(this.#slot(userId));
    else {
      user.running -= 1;
      if (user.running === 0) this.#users.delete(userId);
    }
  }
}

/** The progress event of a call that waits for a slot, for the caller's progress channel. */
export function slotWaitProgress(wait: { running: number; ahead: number; limit: number }): ToolProgressEvent {
  const ahead =
    wait.ahead === 0 ? '' : ` ${wait.ahead} more ${wait.ahead === 1 ? 'waits' : 'wait'} ahead of this one.`;
  return {
    type: 'waiting_for_call_slot',
    message:
      `Waiting for a free slot: ${wait.running} of this user's tool calls are running, the most one user ` +
      `may run at once (${USER_TOOL_CALL_LIMIT_VARIABLE}=${wait.limit}); this call starts when one ends.${ahead}`,
    running: wait.running,
    ahead: wait.ahead,
    limit: wait.limit,
  };
}
