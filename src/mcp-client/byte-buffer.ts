/**
 * A byte buffer that grows by doubling as bytes are appended and can be cut back to an earlier length:
 * what the message cutter keeps of a message, written as it is read and taken back when an item goes.
 */
export class ByteBuffer {
  #bytes = new Uint8Array(1024);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  /** Cuts the buffer back to `length` bytes (never longer than it is). */
  truncate(length: number): void {
    this.#length = Math.min(this.#length, Math.max(0, length));
  }

  push(byte: number): void {
    this.#reserve(1);
    this.#bytes[this.#length] = byte;
    this.#length += 1;
  }

  append(chunk: Uint8Array, start = 0, stop = chunk.length): void {
    if (stop <= start) return;
    this.#reserve(stop - start);
    this.#bytes.set(chunk.subarray(start, stop), this.#length);
    this.#length += stop - start;
  }

  /** The bytes from `start` to the end, without a copy. */
  view(start = 0): Uint8Array {
    return this.#bytes.subarray(start, this.#length);
  }

  #reserve(bytes: number): void {
    const needed = this.#length + bytes;
    if (needed <= this.#bytes.length) return;
    const grown = new Uint8Array(Math.max(needed, this.#bytes.length * 2));
    grown.set(this.#bytes.subarray(0, this.#length));
    this.#bytes = grown;
  }
}
