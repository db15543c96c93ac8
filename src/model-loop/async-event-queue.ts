/**
 * A single-consumer queue that turns pushes from concurrent work (tool executions, progress callbacks)
 * into an async iterable the turn generator can yield from. Pushing after `close()` is ignored.
 */
export class AsyncEventQueue<T> implements AsyncIterable<T> {
  readonly #items: T[] = [];
  #closed = false;
  #wake: (() => void) | undefined;

  push(item: T): void {
    if (this.#closed) return;
    this.#items.push(item);
    this.#notify();
  }

  /** Ends iteration once the items already pushed are consumed. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let index = 0;
    while (true) {
      if (index < this.#items.length) {
        const item = this.#items[index] as T;
        index += 1;
        if (index > 1024) {
          this.#items.splice(0, index);
          index = 0;
        }
        yield item;
        continue;
      }
      if (this.#closed) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}
