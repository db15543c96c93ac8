/**
 * Reads one output stream of a command under a byte cap: output is capped at `maxOutputBytes`
 * (flagged via `truncated`), and bytes past the cap are drained and dropped, never buffered. The reader keeps at most `maxBytes` and keeps pulling after that, so the writer never
 * blocks on a full pipe, while every later chunk is released as soon as it is counted: a command that
 * prints 2 GB costs the server the cap plus one chunk, not 2 GB. Released chunks are garbage until the
 * collector runs; dropped bytes are reported to a DroppedOutputCollector (dropped-output-collector.ts),
 * which bounds that garbage whatever the collector's timing.
 *
 * A reading can be abandoned: after the shell has exited, a process that escaped its group may still
 * hold the pipe open, and waiting for its end-of-file would wait for that process.
 */
import { type DroppedOutputCollector, defaultDroppedOutputCollector } from './dropped-output-collector.ts';

export interface CappedStreamResult {
  /** The first `min(totalBytes, maxBytes)` bytes of the stream. */
  bytes: Uint8Array;
  /** Every byte the stream delivered, kept or dropped. */
  totalBytes: number;
  /** True when bytes past the cap were dropped. */
  truncated: boolean;
  /** True when the stream reached its end; false when the reading was abandoned first. */
  ended: boolean;
}

export interface CappedStreamReading {
  /** Settles once the stream ends or the reading is abandoned; never rejects. */
  readonly result: Promise<CappedStreamResult>;
  /** Stops reading and closes our end of the stream; `result` then settles with what was read. */
  abandon(): Promise<void>;
}

function concatenate(chunks: Uint8Array[], length: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]?.byteLength === length) return chunks[0];
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    joined.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return joined;
}

/**
 * Starts reading `stream`, keeping at most `maxBytes` (a non-negative integer). Bytes dropped past the
 * cap are reported to `collector` (the process-wide one by default).
 */
export function readCappedStream(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  collector: DroppedOutputCollector = defaultDroppedOutputCollector,
): CappedStreamReading {
  const reader = stream.getReader();
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let totalBytes = 0;
  let truncated = false;
  let ended = false;
  let abandoned = false;

  const result = (async (): Promise<CappedStreamResult> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          // A cancel resolves the pending read as done too; only a real end-of-file counts.
          ended = !abandoned;
          break;
        }
        totalBytes += value.byteLength;
        const room = maxBytes - keptBytes;
        if (room <= 0) {
          truncated = true;
          collector.noteDropped(value.byteLength);
          continue;
        }
        if (value.byteLength <= room) {
          kept.push(value);
          keptBytes += value.byteLength;
        } else {
          // Copy the kept part so the rest of the chunk is not retained through a view of it.
          kept.push(value.slice(0, room));
          keptBytes += room;
          truncated = true;
          collector.noteDropped(value.byteLength - room);
        }
      }
    } catch {
      // A stream error (or a cancel racing a read) ends the reading with what was captured so far.
    } finally {
      reader.releaseLock();
    }
    return { bytes: concatenate(kept, keptBytes), totalBytes, truncated, ended };
  })();

  return {
    result,
    abandon: async () => {
      abandoned = true;
      try {
        await reader.cancel();
      } catch {
        // Already released or errored: nothing left to close.
      }
      await result;
    },
  };
}
