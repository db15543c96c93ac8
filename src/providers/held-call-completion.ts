import type { ProviderEvent } from '../contracts/provider-event.ts';

/**
 * Holds back the last completed tool call until the stream shows the output limit did not cut it: a
 * call stopped by `max_tokens` / `incomplete` must never be completed: its arguments are cut.
 * Counts the calls it released, which decides `tool_calls` versus `stop`.
 */
export class HeldCallCompletion {
  #held: Extract<ProviderEvent, { type: 'tool_call_completed' }> | undefined;
  /** How many calls have been released so far. */
  released = 0;

  /** Holds `event`, replacing any call still held (the caller releases before a new block starts). */
  hold(event: Extract<ProviderEvent, { type: 'tool_call_completed' }>): void {
    this.#held = event;
  }

  /** Drops the held call: the output limit cut it. */
  discard(): void {
    this.#held = undefined;
  }

  /** Yields the held call, if any: the stream went on, so it was whole. */
  *release(): Generator<ProviderEvent> {
    const held = this.#held;
    if (!held) return;
    this.#held = undefined;
    this.released += 1;
    yield held;
  }
}
