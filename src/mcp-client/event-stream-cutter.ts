/**
 * An HTTP event stream (`text/event-stream`) from an external MCP server, re-framed so no event holds
 * more than the message limit: each event's `data` (one JSON-RPC message) is read through a
 * {@link MessageCutter} as it arrives, and the SDK's event parser — which would hold a whole line —
 * only ever sees what was kept. `id`, `event` and `retry` lines pass through, cut at a small length;
 * comments (keep-alives) are dropped. Each event goes out as its fields, one `data` line and a blank line.
 */
import { MessageCutter } from './message-cutter.ts';

/** Longest field name or non-data field value passed on (ids, event names, retry times are short). */
const MAX_FIELD_BYTES = 1024;
const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

enum Phase {
  /** Reading a field name at the start of a line. */
  Name,
  /** Inside a `data` value, fed to the event's cutter. */
  Data,
  /** Inside another field's value, kept up to {@link MAX_FIELD_BYTES}. */
  Other,
  /** A comment: skipped to the end of the line. */
  Comment,
}

export function cutEventStream(limitBytes: number): TransformStream<Uint8Array, Uint8Array> {
  const framer = new EventFramer(limitBytes);
  return new TransformStream<Uint8Array, Uint8Array>({
    transform: (chunk, controller) => framer.read(chunk, controller),
    flush: (controller) => framer.end(controller),
  });
}

type Output = TransformStreamDefaultController<Uint8Array>;

/** The re-framing state of one stream, fed its bytes in order. */
class EventFramer {
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();
  private phase = Phase.Name;
  private name = '';
  private value = '';
  /** The line is at its start (no byte of it read yet). */
  private lineStart = true;
  /** A CR ended the last line, so an LF right after it belongs to the same line end. */
  private afterCr = false;
  /** A `data` value's optional first space is still to be skipped. */
  private skipSpace = false;
  private data: MessageCutter | undefined;
  private dataLines = 0;
  private dataFailed = false;
  private fields = '';

  constructor(private readonly limitBytes: number) {}

  read(chunk: Uint8Array, controller: Output): void {
    let index = 0;
    while (index < chunk.length) {
      const byte = chunk[index] as number;
      if (this.afterCr) {
        this.afterCr = false;
        if (byte === LF) {
          index += 1;
          continue;
        }
      }
      if (byte === LF || byte === CR) {
        this.afterCr = byte === CR;
        this.endLine(controller);
        index += 1;
        continue;
      }
      if (this.phase === Phase.Data) {
        index = this.readData(chunk, index);
        continue;
      }
      this.readFieldByte(byte);
      index += 1;
    }
  }

  end(controller: Output): void {
    if (!this.lineStart) this.endLine(controller);
    this.dispatch(controller);
  }

  /** Feeds a `data` value's bytes from `index` to the line's end; the index where the line ends. */
  private readData(chunk: Uint8Array, index: number): number {
    if (this.skipSpace) {
      this.skipSpace = false;
      if (chunk[index] === SPACE) return index + 1;
    }
    let end = index;
    while (end < chunk.length && chunk[end] !== LF && chunk[end] !== CR) end += 1;
    this.feedData(chunk, index, end);
    return end;
  }

  /** One byte of a field name, a non-data value or a comment. */
  private readFieldByte(byte: number): void {
    if (this.lineStart && byte === COLON) this.phase = Phase.Comment;
    this.lineStart = false;
    if (this.phase === Phase.Name) {
      if (byte === COLON) {
        if (this.name === 'data') {
          this.startData();
          this.phase = Phase.Data;
          this.skipSpace = true;
        } else {
          this.phase = Phase.Other;
          this.skipSpace = true;
        }
      } else if (this.name.length < MAX_FIELD_BYTES) {
        this.name += String.fromCharCode(byte);
      }
    } else if (this.phase === Phase.Other) {
      if (this.skipSpace) {
        this.skipSpace = false;
        if (byte !== SPACE) this.value += String.fromCharCode(byte);
      } else if (this.value.length < MAX_FIELD_BYTES) {
        this.value += String.fromCharCode(byte);
      }
    }
  }

  private feedData(chunk: Uint8Array, start: number, end: number): void {
    if (this.dataFailed || start >= end || this.data === undefined) return;
    try {
      this.data.feed(chunk, start, end);
    } catch {
      // Not JSON: the event goes on without data, as if the server had sent none.
      this.dataFailed = true;
    }
  }

  private endLine(controller: Output): void {
    if (this.lineStart) {
      this.dispatch(controller);
    } else if (this.phase === Phase.Name || this.phase === Phase.Other) {
      if (this.name === 'data') {
        // `data` with no colon: an empty data line.
        this.startData();
        this.dataLines += 1;
      } else if (this.name !== '') {
        this.fields += `${this.name}:${this.value.length > 0 ? ` ${this.value}` : ''}\n`;
      }
    } else if (this.phase === Phase.Data) {
      this.dataLines += 1;
    }
    this.phase = Phase.Name;
    this.name = '';
    this.value = '';
    this.lineStart = true;
  }

  private startData(): void {
    if (this.data === undefined) this.data = new MessageCutter(this.limitBytes);
    else if (this.dataLines > 0) {
      // Data lines of one event join with a newline, which is whitespace to JSON.
      this.feedData(this.encoder.encode('\n'), 0, 1);
    }
  }

  private dispatch(controller: Output): void {
    let kept = '';
    if (this.data !== undefined && !this.dataFailed) {
      try {
        kept = this.decoder.decode(this.data.finish());
      } catch {
        kept = '';
      }
    }
    const event = `${this.fields}${kept === '' ? '' : `data: ${kept}\n`}`;
    if (event !== '') controller.enqueue(this.encoder.encode(`${event}\n`));
    this.data = undefined;
    this.dataLines = 0;
    this.dataFailed = false;
    this.fields = '';
  }
}
