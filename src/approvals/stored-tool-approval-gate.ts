/**
 * The approval gate of a chat turn on the server: each question is a row of the approval repository
 * (`tool-approval-repository.ts`), so any instance can show and answer it. The instance running the turn
 * learns the answer at once when it was taken in this process or another instance's wake-up reached
 * it (`WakeUpSource`, topic `approval`), otherwise at its next poll of the row (every
 * `pollMilliseconds`, like the cancel poll; while the source pushes, only every
 * `fallbackPollMilliseconds`).
 *
 * Guarantees:
 * - The question is recorded under the turn's fence (`BackgroundTurn.fencedWrite`): a turn that lost the
 *   chat asks nothing.
 * - The answer resolves exactly once, from the row's state when it left `waiting`: the user's answer,
 *   the timeout (the row closed as `timed_out` at `expiresAt`; an answer that won the race just before
 *   counts), or the turn's signal (closed as `cancelled`, or `interrupted` when the turn lost its
 *   lease). On a cancel or interruption the answer resolves at once, without waiting for the database.
 * - A database failure while closing on timeout denies (fails closed); the row's expiry also makes the
 *   answer route refuse any later answer.
 * - Timers and polls stop once the answer resolved.
 */
import { errorMessage } from '../errors/error-message.ts';
import { REAL_TOOL_TIMERS, type ToolTimers } from '../tools/execution.ts';
import type { TurnFence } from '../turns/turn-fence.ts';
import { pollIsDue, type WakeUpSource } from '../turns/wake-up-source.ts';
import {
  type AskedToolApproval,
  pendingApprovalOf,
  type ToolApprovalGate,
  type ToolApprovalOutcome,
  type ToolApprovalQuestion,
} from './tool-approval-gate.ts';
import type { ToolApprovalRecord, ToolApprovalRepository } from './tool-approval-repository.ts';

export interface StoredToolApprovalGateOptions {
  store: ToolApprovalRepository;
  turnId: string;
  chatId: string;
  /** Runs a write under the turn's fence (retried while the lease holds). */
  fencedWrite: <T>(operation: (fence: TurnFence) => Promise<T>) => Promise<T>;
  /** True once the turn lost its lease: an abort then means `interrupted`, not `cancel`. */
  isLost: () => boolean;
  now: () => number;
  pollMilliseconds: number;
  wakeups: WakeUpSource;
  /** The timeout's timer (tests fire it without waiting). */
  timers?: ToolTimers;
  log?: (line: string) => void;
}

function iso(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}

/** The outcome a row states, or undefined while it waits. */
export function outcomeOfRecord(record: ToolApprovalRecord): ToolApprovalOutcome | undefined {
  const reason = record.decisionReason === null ? {} : { reason: record.decisionReason };
  switch (record.state) {
    case 'approved':
      return {
        decision: 'approved',
        by: 'user',
        ...reason,
        ...(record.remembered === null ? {} : { remembered: record.remembered }),
      };
    case 'denied':
      return { decision: 'denied', by: 'user', ...reason };
    case 'timed_out':
      return { decision: 'denied', by: 'timeout' };
    case 'cancelled':
      return { decision: 'denied', by: 'cancel' };
    case 'interrupted':
      return { decision: 'denied', by: 'interrupted' };
    default:
      return undefined;
  }
}

export class StoredToolApprovalGate implements ToolApprovalGate {
  readonly #options: StoredToolApprovalGateOptions;

  constructor(options: StoredToolApprovalGateOptions) {
    this.#options = options;
  }

  async ask(question: ToolApprovalQuestion, signal: AbortSignal): Promise<AskedToolApproval> {
    const { store, now, wakeups } = this.#options;
    const timers = this.#options.timers ?? REAL_TOOL_TIMERS;
    const log = this.#options.log ?? ((line: string) => console.error(line));
    const id = crypto.randomUUID();
    const requestedAt = now();
    const pending = pendingApprovalOf(question, requestedAt);
    await this.#options.fencedWrite((fence) =>
      store.insertApproval(fence, {
        id,
        turnId: this.#options.turnId,
        chatId: this.#options.chatId,
        ...pending,
      }),
    );

    const answer = new Promise<ToolApprovalOutcome>((resolve) => {
      let settled = false;
      const cleanups: (() => void)[] = [];
      const finish = (outcome: ToolApprovalOutcome) => {
        if (settled) return;
        settled = true;
        for (const cleanup of cleanups) cleanup();
        resolve(outcome);
      };
      const check = async () => {
        if (settled) return;
        try {
          const record = await store.getApproval(id);
          const outcome = record === undefined ? undefined : outcomeOfRecord(record);
          if (outcome !== undefined) finish(outcome);
        } catch (error) {
          // The next poll tries again; the timeout still bounds the wait.
          log(`Reading approval ${id} failed: ${errorMessage(error)}`);
        }
      };

      const onAbort = () => {
        const interrupted = this.#options.isLost();
        const state = interrupted ? 'interrupted' : 'cancelled';
        store.closeApproval(id, state, iso(now())).catch((error: unknown) => {
          log(`Closing approval ${id} as ${state} failed: ${errorMessage(error)}`);
        });
        finish({ decision: 'denied', by: interrupted ? 'interrupted' : 'cancel' });
      };
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
      cleanups.push(() => signal.removeEventListener('abort', onAbort));

      const timer = timers.setTimeout(async () => {
        if (settled) return;
        try {
          if (await store.closeApproval(id, 'timed_out', iso(now()))) {
            finish({ decision: 'denied', by: 'timeout' });
            return;
          }
          await check(); // answered just before the timeout
        } catch (error) {
          log(`Closing approval ${id} on timeout failed: ${errorMessage(error)}`);
        }
        finish({ decision: 'denied', by: 'timeout' });
      }, question.timeoutSeconds * 1000);
      cleanups.push(() => timers.clearTimeout(timer));

      let lastReadAt = performance.now();
      const poll = setInterval(() => {
        if (!pollIsDue(wakeups, performance.now() - lastReadAt)) return;
        lastReadAt = performance.now();
        void check();
      }, this.#options.pollMilliseconds);
      cleanups.push(() => clearInterval(poll));
      cleanups.push(wakeups.subscribe('approval', id, () => void check()));
    });
    return { pending, answer };
  }
}
