/**
 * In-process wake-ups for approval questions: an answer taken by this process reaches the waiting turn
 * at once instead of at its next poll. Listeners are keyed by question id; a notify with nobody
 * listening (the turn runs on another instance) does nothing, and that instance's poll finds the
 * answer in the database.
 */
export class ApprovalWakeups {
  readonly #listeners = new Map<string, Set<() => void>>();

  /** Calls `listener` on every notify of `id` until the returned function is called. */
  subscribe(id: string, listener: () => void): () => void {
    let listeners = this.#listeners.get(id);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(id, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(id);
    };
  }

  notify(id: string): void {
    for (const listener of [...(this.#listeners.get(id) ?? [])]) listener();
  }
}
