/**
 * How a glob's matches cross the pipe: as the reply's payload, each path's UTF-8 bytes ended by a NUL,
 * which no path can hold, so the split is unambiguous and thousands of long paths stay out of the
 * bounded JSON header (file-worker-protocol.ts). The reply's header says how many there are; the
 * server's validator (`globReply`, file-worker-replies.ts) judges the payload and each path in it.
 */

/** The payload of `paths` (none: no bytes). */
export function encodeGlobPaths(paths: readonly string[]): Uint8Array {
  return paths.length === 0 ? new Uint8Array(0) : new TextEncoder().encode(`${paths.join('\0')}\0`);
}

/** The paths of a payload, or undefined when it is not UTF-8 text of NUL-ended paths. */
export function decodeGlobPaths(payload: Uint8Array): string[] | undefined {
  if (payload.length === 0) return [];
  if (payload[payload.length - 1] !== 0) return undefined;
  try {
    // A leading byte-order mark is kept, not dropped: the first path must then fail as not absolute.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
      .decode(payload.subarray(0, -1))
      .split('\0');
  } catch {
    return undefined;
  }
}
