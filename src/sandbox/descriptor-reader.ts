/**
 * Reading an extra pipe of a sandbox process (Bun hands pipes beyond stdio over as plain descriptor
 * numbers): a line at a time, up to a marker, or to the end, only when asked, so what the sandbox wrote
 * waits in the pipe until someone needs it.
 */
import { closeSync } from 'node:fs';

/** Reads a pipe descriptor line by line on demand, then to its end; closes it at the end. */
export function descriptorReader(descriptor: unknown) {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  const decoder = new TextDecoder();
  let buffered = '';
  let ended = typeof descriptor !== 'number';
  let closed = false;
  const close = () => {
    ended = true;
    if (closed) return;
    closed = true;
    void reader?.cancel().catch(() => {});
    try {
      if (typeof descriptor === 'number') closeSync(descriptor);
    } catch {
      // Already closed by the stream.
    }
  };
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    try {
      reader ??= Bun.file(descriptor as number)
        .stream()
        .getReader();
      const chunk = await reader.read();
      if (chunk.done) {
        close();
        return false;
      }
      buffered += decoder.decode(chunk.value, { stream: true });
      return true;
    } catch {
      close();
      return false;
    }
  };
  return {
    /** The next line (without its newline), or undefined at the end. */
    async line(): Promise<string | undefined> {
      while (!buffered.includes('\n')) if (!(await more())) return undefined;
      const end = buffered.indexOf('\n');
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      return line;
    },
    /**
     * Everything read until `marker` was seen (or the end), without waiting for the end itself; ''
     * when `limitMs` passed first.
     */
    async through(marker: string, limitMs: number): Promise<string> {
      const read = (async () => {
        while (!buffered.includes(marker)) if (!(await more())) break;
        return buffered;
      })();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(''), limitMs);
      });
      try {
        return await Promise.race([read, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Everything not read yet, up to the end. */
    async rest(): Promise<string> {
      while (await more());
      const text = buffered;
      buffered = '';
      return text;
    },
    /** Stops reading and closes the descriptor (it is ours: Bun hands extra pipes over as numbers). */
    close,
  };
}
