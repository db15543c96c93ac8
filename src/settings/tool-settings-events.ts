/**
 * In-process notifications that a user's tool settings changed, so running sessions (MCP) can refresh
 * what they offer. One API instance only: a multi-instance deployment would carry these over the
 * database (PostgreSQL LISTEN/NOTIFY) — the subscribers would not change.
 */
export type ToolSettingsListener = (userId: string, toolName: string) => void;

export class ToolSettingsEvents {
  readonly #listeners = new Map<string, Set<ToolSettingsListener>>();

  /** Calls `listener` after every settings change of `userId`; returns the unsubscribe function. */
  subscribe(userId: string, listener: ToolSettingsListener): () => void {
    let listeners = this.#listeners.get(userId);
    if (!listeners) {
      listeners = new Set();
      this.#listeners.set(userId, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#listeners.delete(userId);
    };
  }

  emit(userId: string, toolName: string): void {
    for (const listener of this.#listeners.get(userId) ?? []) {
      try {
        listener(userId, toolName);
      } catch (error) {
        console.warn(`[mango] settings listener failed: ${(error as Error).message}`);
      }
    }
  }
}
