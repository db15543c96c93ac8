/**
 * What the server and a file worker say to each other over the worker's stdin and stdout: frames of a
 * JSON header and an optional run of raw bytes (a file's content travels as itself, never as base64).
 *
 * A frame is `u32 header length` `u32 payload length` (big-endian), the header as UTF-8 JSON, then the
 * payload. The server opens with `init` (the protocol version it speaks, the user and the reachable
 * set the worker serves); the worker answers `hello` with its own version, and the server refuses a
 * worker that speaks another. Then each `call` carries an id, and the worker answers each with one
 * `reply` of the same id, in any order. A call whose payload is larger than one frame may carry (an
 * upload above {@link MAX_PAYLOAD_BYTES}) says how many `parts` it comes in: its own frame holds the
 * first, and that many less one `part` frames of the same id follow it at once, in order, each with
 * the next run of bytes; the worker answers once it has them all. A `cancel` of a call's id (its
 * signal fired: a budget ran out, a turn was stopped) asks the worker to stop that call's work; the
 * worker still answers it once, and the server, which failed the call already, drops that answer.
 *
 * The reader bounds what it holds: a header over {@link MAX_HEADER_BYTES} or a payload over
 * {@link MAX_PAYLOAD_BYTES} is a protocol error, raised before the bytes are taken in, so a worker that
 * sends garbage costs the server one small buffer, and the worker is then stopped.
 */
import { MangoError } from '../errors/mango-error.ts';

/** The one version both ends speak; a change to any message shape takes the next number. */
export const FILE_WORKER_PROTOCOL = 3;
/** Largest JSON header of one frame. */
export const MAX_HEADER_BYTES = 4 * 1024 * 1024;
/**
 * Largest payload: read_file's 10 MiB ceiling plus one byte to tell it was passed, and an upload of the
 * default 25 MiB cap (a download goes in ranges of 1 MiB), with room to spare.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;
/** Most frames one call's payload comes in: 64 of the largest payload, 4 GiB. */
export const MAX_CALL_PARTS = 64;
/** Largest payload of one call (see `parts` above). */
export const MAX_CALL_PAYLOAD_BYTES = MAX_CALL_PARTS * MAX_PAYLOAD_BYTES;

const PREFIX_BYTES = 8;

/** A frame that breaks the rules above; the end that reads it stops the other. */
export class FileWorkerProtocolError extends MangoError {
  constructor(message: string) {
    super('file_worker_protocol', message);
    this.name = 'FileWorkerProtocolError';
  }
}

export interface Frame {
  header: unknown;
  payload: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** One frame as bytes. */
export function encodeFrame(header: unknown, payload: Uint8Array = EMPTY): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const frame = new Uint8Array(PREFIX_BYTES + json.length + payload.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, json.length);
  view.setUint32(4, payload.length);
  frame.set(json, PREFIX_BYTES);
  frame.set(payload, PREFIX_BYTES + json.length);
  return frame;
}

/**
 * The frames of one call: its own, with the first run of `payload`, and a `part` frame for each further
 * run of at most {@link MAX_PAYLOAD_BYTES}.
 */
export function encodeCallFrames(header: Record<string, unknown>, payload?: Uint8Array): Uint8Array[] {
  if (payload === undefined || payload.length <= MAX_PAYLOAD_BYTES) return [encodeFrame(header, payload)];
  const parts = Math.ceil(payload.length / MAX_PAYLOAD_BYTES);
  if (parts > MAX_CALL_PARTS) {
    throw new FileWorkerProtocolError(
      `a call's payload of ${payload.length} bytes is more than the ${MAX_CALL_PAYLOAD_BYTES} one call may carry`,
    );
  }
  const run = (index: number) => payload.subarray(index * MAX_PAYLOAD_BYTES, (index + 1) * MAX_PAYLOAD_BYTES);
  const frames = [encodeFrame({ ...header, parts }, run(0))];
  for (let index = 1; index < parts; index += 1)
    frames.push(encodeFrame({ type: 'part', id: header.id }, run(index)));
  return frames;
}

/** Cuts a byte stream into frames; `push` returns the frames completed by `chunk`. */
export class FrameReader {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #wanted: { header: number; payload: number } | undefined;

  push(chunk: Uint8Array): Frame[] {
    this.#chunks.push(chunk);
    this.#buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.#wanted === undefined) {
        if (this.#buffered < PREFIX_BYTES) return frames;
        const prefix = this.#take(PREFIX_BYTES);
        const view = new DataView(prefix.buffer, prefix.byteOffset, PREFIX_BYTES);
        const header = view.getUint32(0);
        const payload = view.getUint32(4);
        if (header > MAX_HEADER_BYTES) {
          throw new FileWorkerProtocolError(
            `a frame's header is ${header} bytes, more than the ${MAX_HEADER_BYTES} a header may have`,
          );
        }
        if (payload > MAX_PAYLOAD_BYTES) {
          throw new FileWorkerProtocolError(
            `a frame's payload is ${payload} bytes, more than the ${MAX_PAYLOAD_BYTES} a payload may have`,
          );
        }
        this.#wanted = { header, payload };
      }
      const { header, payload } = this.#wanted;
      if (this.#buffered < header + payload) return frames;
      this.#wanted = undefined;
      const json = this.#take(header);
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
      } catch {
        throw new FileWorkerProtocolError("a frame's header is not JSON text");
      }
      frames.push({ header: parsed, payload: payload === 0 ? EMPTY : this.#take(payload) });
    }
  }

  /** The next `count` buffered bytes, as one array (a copy only when they span chunks). */
  #take(count: number): Uint8Array {
    this.#buffered -= count;
    const first = this.#chunks[0] as Uint8Array;
    if (first.length >= count) {
      if (first.length === count) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(count);
      return first.subarray(0, count);
    }
    const out = new Uint8Array(count);
    let filled = 0;
    while (filled < count) {
      const chunk = this.#chunks[0] as Uint8Array;
      const part = Math.min(chunk.length, count - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(part);
    }
    return out;
  }
}

/** The operations a worker does: those of tools/fs/file-operations.ts. */
export const FILE_WORKER_OPERATIONS = [
  'readFile',
  'inspectWriteTarget',
  'replaceFile',
  'listDirectory',
  'resolveLocation',
  // The workspace files routes.
  'listFolder',
  'openDownload',
  'readRange',
  'uploadFile',
  // A message's attachments.
  'inspectFile',
  // glob.
  'globFiles',
  // grep.
  'grepFiles',
] as const;
export type FileWorkerOperation = (typeof FILE_WORKER_OPERATIONS)[number];
