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
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let phase = Phase.Name;
  let name = '';
  let value = '';
  /** The line is at its start (no byte of it read yet). */
  let lineStart = true;
  /** A CR ended the last line, so an LF right after it belongs to the same line end. */
  let afterCr = false;
  /** A `data` value's optional first space is still to be skipped. */
  let skipSpace = false;
  let data: MessageCutter | undefined;
  let dataLines = 0;
  let dataFailed = false;
  let fields = '';

  const feedData = (chunk: Uint8Array, start: number, end: number) => {
    if (dataFailed || start >= end || data === undefined) return;
    try {
      data.feed(chunk, start, end);
    } catch {
      // Not JSON: the event goes on without data, as if the server had sent none.
      dataFailed = true;
    }
  };

  const endLine = (controller: TransformStreamDefaultController<Uint8Array>) => {
    if (lineStart) {
      dispatch(controller);
    } else if (phase === Phase.Name || phase === Phase.Other) {
      if (name === 'data') {
        // `data` with no colon: an empty data line.
        startData();
        dataLines += 1;
      } else if (name !== '') {
        fields += `${name}:${value.length > 0 ? ` ${value}` : ''}\n`;
      }
    } else if (phase === Phase.Data) {
      dataLines += 1;
    }
    phase = Phase.Name;
    name = '';
    value = '';
    lineStart = true;
  };

  const startData = () => {
    if (data === undefined) data = new MessageCutter(limitBytes);
    else if (dataLines > 0) {
      // Data lines of one event join with a newline, which is whitespace to JSON.
      feedData(encoder.encode('\n'), 0, 1);
    }
  };

  const dispatch = (controller: TransformStreamDefaultController<Uint8Array>) => {
    let kept = '';
    if (data !== undefined && !dataFailed) {
      try {
        kept = decoder.decode(data.finish());
      } catch {
        kept = '';
      }
    }
    const event = `${fields}${kept === '' ? '' : `data: ${kept}\n`}`;
    if (event !== '') controller.enqueue(encoder.encode(`${event}\n`));
    data = undefined;
    dataLines = 0;
    dataFailed = false;
    fields = '';
  };

  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let index = 0;
      while (index < chunk.length) {
        const byte = chunk[index] as number;
        if (afterCr) {
          afterCr = false;
          if (byte === LF) {
            index += 1;
            continue;
          }
        }
        if (byte === LF || byte === CR) {
          afterCr = byte === CR;
          endLine(controller);
          index += 1;
          continue;
        }
        if (phase === Phase.Data) {
          if (skipSpace) {
            skipSpace = false;
            if (byte === SPACE) {
              index += 1;
              continue;
            }
          }
          let end = index;
          while (end < chunk.length && chunk[end] !== LF && chunk[end] !== CR) end += 1;
          feedData(chunk, index, end);
          index = end;
          continue;
        }
        if (lineStart && byte === COLON) phase = Phase.Comment;
        lineStart = false;
        if (phase === Phase.Name) {
          if (byte === COLON) {
            if (name === 'data') {
              startData();
              phase = Phase.Data;
              skipSpace = true;
            } else {
              phase = Phase.Other;
              skipSpace = true;
            }
          } else if (name.length < MAX_FIELD_BYTES) {
            name += String.fromCharCode(byte);
          }
        } else if (phase === Phase.Other) {
          if (skipSpace) {
            skipSpace = false;
            if (byte !== SPACE) value += String.fromCharCode(byte);
          } else if (value.length < MAX_FIELD_BYTES) {
            value += String.fromCharCode(byte);
          }
        }
        index += 1;
      }
    },
    flush(controller) {
      if (!lineStart) endLine(controller);
      dispatch(controller);
    },
  });
}
