/**
 * Reads one JSON-RPC message from an external MCP server as it streams in and keeps at most a fixed
 * number of its bytes, so a server that sends 50 MiB never has them held whole: the transports (stdio
 * lines, HTTP JSON bodies, event-stream events) feed every byte through one cutter per message and hand
 * the SDK only what it kept.
 *
 * What is kept is always valid JSON with the message's shape:
 * - a string that does not fit is cut at a UTF-8 and escape boundary (the text of a result arrives as
 *   its first bytes); a base64 value (`data`, `blob`) is never cut, since a cut image or blob is
 *   garbage (and fails the SDK's base64 check): one that does not fit is left out with its item;
 * - once the limit is reached, further array elements and object members are left out — except that
 *   the message's own members (`id`, `jsonrpc`, `result`…) and the result's members (`isError`…) get a
 *   small allowance past the limit, so the answer still reaches its request;
 * - when anything was cut, the `result` object gains a member {@link TRANSPORT_CUT_KEY} saying how big
 *   it was, so a listing can be refused and a call result can say so with the cut marker.
 *
 * Whitespace outside strings is dropped. Nesting is bounded too (a thousand `[` cost a stack).
 */
import { completeUtf8PrefixLength } from '../tools/output/utf8-cap.ts';
import { ByteBuffer } from './byte-buffer.ts';
import { TRANSPORT_CUT_KEY, type TransportCut } from './transport-cut.ts';

/** Bytes past the limit the message's and the result's own members may still take. */
const MEMBER_ALLOWANCE_BYTES = 4096;
/** Deepest nesting read; schemas nest, but not this deep. */
const MAX_DEPTH = 128;
/** Longest number or literal (`true`, `1e308`…). */
const MAX_LITERAL_BYTES = 64;
/** Keys whose string values are base64: kept whole or left out with their item, never cut. */
const BASE64_KEYS = new Set(['data', 'blob']);
/**
 * The depth of a result's items (a listing's tools, a call's content blocks, the members of its
 * structured content). An item that loses a member or element is left out whole, so what is kept
 * still passes the SDK's schema: a tool without its `inputSchema` would fail the whole listing.
 */
const ITEM_DEPTH = 3;
/** How much of a key is remembered (only short keys are looked at). */
const KEY_CAPTURE_BYTES = 16;

const LITERAL_BYTE = /[0-9A-Za-z+.-]/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

enum Mode {
  Value,
  ValueOrEnd,
  Key,
  KeyOrEnd,
  Colon,
  CommaOrEnd,
  String,
  Literal,
  Done,
}

interface Frame {
  object: boolean;
  /** Members or elements kept so far (a separator precedes every one after the first). */
  kept: number;
  /** The key of the member being read (its first bytes). */
  key: string;
  /** Input offset of the opening bracket. */
  inputStart: number;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** A byte of a number or literal (`-1.5e3`, `true`); only ever a few per value, so a pattern will do. */
function isLiteralByte(byte: number): boolean {
  return LITERAL_BYTE.test(String.fromCharCode(byte));
}

export class MessageCutter {
  readonly #limit: number;
  readonly #hardLimit: number;
  readonly #out = new ByteBuffer();
  readonly #stack: Frame[] = [];
  #mode: Mode = Mode.Value;
  /** Input bytes read before the current `feed`. */
  #consumed = 0;
  /** Added to an index into the current chunk to give its input offset. */
  #base = 0;
  /** The value depth being left out, or -1 while output is on. */
  #suppress = -1;
  #cut = false;
  #started = false;
  // The string being read.
  #stringIsKey = false;
  #stringWhole = false;
  #stringLimit = 0;
  #stringStart = 0;
  #stringSkipping = false;
  #escaped = false;
  #key = '';
  #literalBytes = 0;
  /** Output offset before the separator of the member being read (to take a key back). */
  #memberStart = 0;
  /** Output offset before the item at {@link ITEM_DEPTH} being read, or -1 outside one. */
  #itemStart = -1;

  /** @param limitBytes bytes of the message kept (plus a small allowance for its own members). */
  constructor(limitBytes: number) {
    this.#limit = limitBytes;
    this.#hardLimit = limitBytes + MEMBER_ALLOWANCE_BYTES;
  }

  /** Reads `chunk[start, end)`. @throws SyntaxError on what is not JSON. */
  feed(chunk: Uint8Array, start = 0, end = chunk.length): void {
    let index = start;
    this.#base = this.#consumed - start;
    while (index < end) {
      if (this.#mode === Mode.String) {
        index = this.#stringBytes(chunk, index, end);
        continue;
      }
      const byte = chunk[index] as number;
      if (this.#mode === Mode.Literal) {
        if (isLiteralByte(byte)) {
          this.#literalByte(byte);
          index += 1;
          continue;
        }
        this.#completeValue();
      }
      this.#structural(byte, this.#base + index);
      index += 1;
    }
    this.#consumed += end - start;
  }

  /**
   * The kept message as UTF-8 JSON, or an empty array when only whitespace came.
   * @throws SyntaxError when the message is incomplete.
   */
  finish(): Uint8Array {
    if (this.#mode === Mode.Literal) this.#completeValue();
    if (!this.#started) return new Uint8Array(0);
    if (this.#mode !== Mode.Done) throw new SyntaxError('The MCP message ended before its JSON did.');
    return this.#out.view();
  }

  #structural(byte: number, offset: number): void {
    if (isWhitespace(byte)) return;
    switch (this.#mode) {
      case Mode.Value:
        this.#beginValue(byte, offset);
        return;
      case Mode.ValueOrEnd:
        if (byte === 0x5d) {
          this.#close(false, offset);
          return;
        }
        this.#beginValue(byte, offset);
        return;
      case Mode.KeyOrEnd:
        if (byte === 0x7d) {
          this.#close(true, offset);
          return;
        }
        this.#beginKey(byte);
        return;
      case Mode.Key:
        this.#beginKey(byte);
        return;
      case Mode.Colon:
        if (byte !== 0x3a) throw this.#unexpected(byte);
        this.#put(byte);
        this.#mode = Mode.Value;
        return;
      case Mode.CommaOrEnd: {
        const frame = this.#stack[this.#stack.length - 1] as Frame;
        if (byte === 0x2c) {
          this.#mode = frame.object ? Mode.Key : Mode.Value;
          return;
        }
        if (byte === (frame.object ? 0x7d : 0x5d)) {
          this.#close(frame.object, offset);
          return;
        }
        throw this.#unexpected(byte);
      }
      default:
        throw this.#unexpected(byte);
    }
  }

  #unexpected(byte: number): SyntaxError {
    return new SyntaxError(`Unexpected ${JSON.stringify(String.fromCharCode(byte))} in an MCP message.`);
  }

  /**
   * The limit for a value at `depth`: the result's members get half the allowance and the message's
   * own members all of it, so however many members a result has, its `id` still arrives.
   */
  #limitAt(depth: number): number {
    if (depth <= 1) return this.#hardLimit;
    return depth === 2 ? this.#limit + MEMBER_ALLOWANCE_BYTES / 2 : this.#limit;
  }

  #beginValue(byte: number, offset: number): void {
    this.#started = true;
    const depth = this.#stack.length;
    const parent = this.#stack[depth - 1];
    if (parent && !parent.object && this.#suppress < 0) {
      if (this.#out.length >= this.#limitAt(depth)) {
        this.#leaveOut(depth);
      } else {
        if (depth === ITEM_DEPTH) this.#itemStart = this.#out.length;
        if (parent.kept > 0) this.#put(0x2c);
        parent.kept += 1;
      }
    }
    if (byte === 0x7b || byte === 0x5b) {
      if (depth >= MAX_DEPTH) throw new SyntaxError(`An MCP message nests deeper than ${MAX_DEPTH} levels.`);
      this.#put(byte);
      this.#stack.push({ object: byte === 0x7b, kept: 0, key: '', inputStart: offset });
      this.#mode = byte === 0x7b ? Mode.KeyOrEnd : Mode.ValueOrEnd;
      return;
    }
    if (byte === QUOTE) {
      const whole = parent?.object === true && BASE64_KEYS.has(parent.key);
      this.#beginString(false, whole, this.#limitAt(depth));
      return;
    }
    if (!isLiteralByte(byte)) throw this.#unexpected(byte);
    this.#mode = Mode.Literal;
    this.#literalBytes = 0;
    this.#literalByte(byte);
  }

  #beginKey(byte: number): void {
    if (byte !== QUOTE) throw this.#unexpected(byte);
    const depth = this.#stack.length;
    const frame = this.#stack[depth - 1] as Frame;
    if (this.#suppress < 0) {
      if (this.#out.length >= this.#limitAt(depth)) {
        this.#leaveOut(depth);
      } else {
        this.#memberStart = this.#out.length;
        if (depth === ITEM_DEPTH) this.#itemStart = this.#out.length;
        if (frame.kept > 0) this.#put(0x2c);
        frame.kept += 1;
      }
    }
    this.#beginString(true, true, this.#limitAt(depth));
  }

  #beginString(isKey: boolean, whole: boolean, limit: number): void {
    this.#mode = Mode.String;
    this.#stringIsKey = isKey;
    this.#stringWhole = whole;
    this.#stringLimit = limit;
    this.#stringStart = this.#out.length;
    this.#stringSkipping = this.#suppress >= 0;
    this.#escaped = false;
    this.#key = '';
    this.#put(QUOTE);
  }

  /** Reads string bytes from `index`; returns where it stopped (after the closing quote, or `end`). */
  #stringBytes(chunk: Uint8Array, index: number, end: number): number {
    let at = index;
    while (at < end) {
      if (this.#escaped) {
        // The byte after a backslash never ends the string; `\uXXXX`'s digits are plain bytes.
        this.#escaped = false;
        this.#stringByte(chunk[at] as number);
        at += 1;
        continue;
      }
      // A run of plain bytes up to the next quote or backslash, copied (or skipped) at once.
      let stop = at;
      while (stop < end) {
        const byte = chunk[stop] as number;
        if (byte === QUOTE || byte === BACKSLASH) break;
        stop += 1;
      }
      if (stop > at) {
        if (!this.#stringSkipping) this.#copyRun(chunk, at, stop);
        if (this.#stringIsKey && this.#key.length < KEY_CAPTURE_BYTES) {
          this.#key += String.fromCharCode(...chunk.subarray(at, Math.min(stop, at + KEY_CAPTURE_BYTES)));
        }
        at = stop;
        continue;
      }
      const byte = chunk[at] as number;
      at += 1;
      if (byte === BACKSLASH) {
        // An escape is kept whole or not at all: room for the longest, `\uXXXX`.
        if (!this.#stringSkipping && this.#out.length + 6 > this.#stringLimit) this.#overflow();
        this.#escaped = true;
        this.#stringByte(byte);
        continue;
      }
      this.#endString();
      return at;
    }
    return at;
  }

  #stringByte(byte: number): void {
    if (!this.#stringSkipping) this.#put(byte);
  }

  #copyRun(chunk: Uint8Array, start: number, stop: number): void {
    const room = this.#stringLimit - this.#out.length;
    if (stop - start <= room) {
      this.#putRun(chunk, start, stop);
      return;
    }
    // Only whole UTF-8 characters: step back from the cut to the start of the character it splits.
    if (!this.#stringWhole) {
      this.#putRun(chunk, start, start + Math.max(0, room));
      // A character split by the cut (or by the chunk boundary before it) is dropped whole.
      const text = this.#out.view(this.#stringStart + 1);
      this.#out.truncate(this.#stringStart + 1 + completeUtf8PrefixLength(text));
    }
    this.#overflow();
  }

  /** The string does not fit: cut it, or (keys, base64 values) leave its member out. */
  #overflow(): void {
    this.#stringSkipping = true;
    this.#cut = true;
    if (!this.#stringWhole) return;
    // The member goes: its separator and key are taken back, and the rest of it is left out.
    this.#out.truncate(this.#memberStart);
    const frame = this.#stack[this.#stack.length - 1] as Frame;
    frame.kept -= 1;
    this.#leaveOut(this.#stack.length);
  }

  #endString(): void {
    this.#put(QUOTE);
    if (this.#stringIsKey) {
      const frame = this.#stack[this.#stack.length - 1] as Frame;
      frame.key = this.#key;
      this.#mode = Mode.Colon;
      return;
    }
    this.#completeValue();
  }

  #literalByte(byte: number): void {
    this.#literalBytes += 1;
    if (this.#literalBytes > MAX_LITERAL_BYTES) {
      throw new SyntaxError(`An MCP message holds a number or literal over ${MAX_LITERAL_BYTES} bytes.`);
    }
    this.#put(byte);
  }

  #close(object: boolean, offset: number): void {
    const frame = this.#stack.pop() as Frame;
    const parent = this.#stack[this.#stack.length - 1];
    const isResult = object && this.#stack.length === 1 && parent?.object === true && parent.key === 'result';
    if (isResult && this.#cut && this.#suppress < 0) {
      const cut: TransportCut = { bytes: offset - frame.inputStart + 1, limitBytes: this.#limit };
      this.#putText(
        `${frame.kept > 0 ? ',' : ''}${JSON.stringify(TRANSPORT_CUT_KEY)}:${JSON.stringify(cut)}`,
      );
    }
    this.#put(object ? 0x7d : 0x5d);
    this.#completeValue();
  }

  /** Leaves out the value at `depth` (and, inside an item, the whole item: see {@link ITEM_DEPTH}). */
  #leaveOut(depth: number): void {
    this.#cut = true;
    if (depth > ITEM_DEPTH && this.#itemStart >= 0) {
      this.#out.truncate(this.#itemStart);
      (this.#stack[ITEM_DEPTH - 1] as Frame).kept -= 1;
      this.#itemStart = -1;
      this.#suppress = ITEM_DEPTH;
      return;
    }
    this.#suppress = depth;
  }

  #completeValue(): void {
    if (this.#stack.length === ITEM_DEPTH) this.#itemStart = -1;
    if (this.#suppress === this.#stack.length) this.#suppress = -1;
    this.#mode = this.#stack.length === 0 ? Mode.Done : Mode.CommaOrEnd;
  }

  #put(byte: number): void {
    if (this.#suppress < 0) this.#out.push(byte);
  }

  #putRun(chunk: Uint8Array, start: number, stop: number): void {
    if (this.#suppress < 0) this.#out.append(chunk, start, stop);
  }

  #putText(text: string): void {
    if (this.#suppress < 0) this.#out.append(new TextEncoder().encode(text));
  }
}
