/**
 * Iterates a provider stream but stops as soon as a signal fires, even when the stream ignores the
 * signal, so a cancel ends the turn within one second whatever the provider does. The
 * abandoned iterator is closed in the background and any late rejection is swallowed.
 */
export async function* iterateUntilAborted<T>(
  iterable: AsyncIterable<T>,
  signal: AbortSignal,
): AsyncGenerator<T, 'aborted' | 'done'> {
  if (signal.aborted) return 'aborted';
  const iterator = iterable[Symbol.asyncIterator]();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  let finished = false;
  try {
    while (true) {
      const next = iterator.next();
      next.catch(() => {});
      const step = await Promise.race([next, aborted]);
      if (step === 'aborted') return 'aborted';
      if (step.done) {
        finished = true;
        return 'done';
      }
      yield step.value;
    }
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
    if (!finished) {
      try {
        Promise.resolve(iterator.return?.()).catch(() => {});
      } catch {
        // An iterator whose return() throws synchronously is abandoned all the same.
      }
    }
  }
}
