/**
 * Incremental parser for the turn stream (`text/event-stream`, one `data: {json}` line per event,
 * events separated by a blank line). `EventSource` cannot POST or send a bearer header, so the app
 * reads the `fetch` body itself. Chunks may split anywhere, including inside a UTF-8 sequence.
 */

export interface TurnStreamEvent {
  type: string;
  [field: string]: unknown;
}

export interface SseParser {
  /** Feeds raw bytes; calls `onEvent` for every complete event. */
  push(chunk: Uint8Array | string): void;
  /** Flushes a final event that lacked its trailing blank line. */
  end(): void;
}

export function createSseParser(onEvent: (event: TurnStreamEvent) => void): SseParser {
  const decoder = new TextDecoder();
  let buffer = '';
  let dataLines: string[] = [];

  const dispatch = () => {
    if (dataLines.length === 0) return;
    const data = dataLines.join('\n');
    dataLines = [];
    try {
      const parsed = JSON.parse(data) as unknown;
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        typeof (parsed as TurnStreamEvent).type === 'string'
      ) {
        onEvent(parsed as TurnStreamEvent);
      }
    } catch {
      // A non-JSON data line is not part of the turn contract; ignore it.
    }
  };

  const processLine = (line: string) => {
    if (line === '') dispatch();
    else if (line.startsWith('data:')) dataLines.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    // Comments (":"), `event:`, `id:` and `retry:` carry nothing the turn contract uses.
  };

  return {
    push(chunk) {
      buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      let newline = buffer.search(/\r\n|\n|\r/);
      while (newline !== -1) {
        // A trailing "\r" may be the first half of "\r\n": wait for the next chunk.
        if (newline === buffer.length - 1 && buffer.endsWith('\r')) break;
        const line = buffer.slice(0, newline);
        const separatorLength = buffer.startsWith('\r\n', newline) ? 2 : 1;
        buffer = buffer.slice(newline + separatorLength);
        processLine(line);
        newline = buffer.search(/\r\n|\n|\r/);
      }
    },
    end() {
      buffer += decoder.decode();
      if (buffer !== '') processLine(buffer);
      buffer = '';
      dispatch();
    },
  };
}

/** Reads a streaming response to the end, delivering each event; resolves when the stream closes. */
export async function readTurnStream(
  response: Response,
  onEvent: (event: TurnStreamEvent) => void,
): Promise<void> {
  const parser = createSseParser(onEvent);
  if (!response.body) return;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.push(value);
  }
  parser.end();
}
