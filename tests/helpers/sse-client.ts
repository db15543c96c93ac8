/**
 * Reads a `text/event-stream` response as parsed JSON events (one `data:` line per event, as the chat
 * turn route sends them); comment lines (`: keep-alive`) are skipped.
 */
export async function* readSseEvents(response: Response): AsyncGenerator<Record<string, unknown>> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let boundary = buffer.indexOf('\n\n');
      while (boundary !== -1) {
        const block = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        for (const line of block.split('\n')) {
          if (line.startsWith('data: ')) yield JSON.parse(line.slice(6)) as Record<string, unknown>;
        }
        boundary = buffer.indexOf('\n\n');
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Every event of a finished stream. */
export async function collectSseEvents(response: Response): Promise<Record<string, unknown>[]> {
  const events: Record<string, unknown>[] = [];
  for await (const event of readSseEvents(response)) events.push(event);
  return events;
}
