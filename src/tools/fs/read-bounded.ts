/**
 * Reading a descriptor under a byte ceiling: the ceiling bounds the bytes the descriptor
 * yields rather than the size stat claims. At most `ceiling + 1` bytes are ever read, so a
 * file that under-reports its size or grows mid-read is detected at the cap, not read past it.
 */
import type { FileHandle } from 'node:fs/promises';

export type BoundedRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: 'over_ceiling' };

/** Reads the whole descriptor from offset 0, or reports that it yields more than `ceiling` bytes. */
export async function readBounded(
  handle: FileHandle,
  ceiling: number,
  sizeHint: number,
): Promise<BoundedRead> {
  let buffer = new Uint8Array(Math.min(ceiling + 1, Math.max(sizeHint + 1, 64 * 1024)));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > ceiling) return { ok: false, reason: 'over_ceiling' };
      const grown = new Uint8Array(Math.min(ceiling + 1, buffer.length * 2));
      grown.set(buffer);
      buffer = grown;
    }
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length > ceiling) return { ok: false, reason: 'over_ceiling' };
  }
  return { ok: true, bytes: buffer.subarray(0, length) };
}
