/**
 * How a glob's matches cross the pipe: as the reply's payload, each path's UTF-8 bytes ended by a NUL,
 * which no path can hold, so the split is unambiguous and thousands of long paths stay out of the
 * bounded JSON header (file-worker-protocol.ts). The reply's header says how many there are; the
 * server reads the payload back here, judging every path in it as untrusted input, and its validator
 * (`globReply`, file-worker-replies.ts) judges the rest of the reply.
 */

const SLASH = 0x2f;
/** A slash that starts an empty, `.` or `..` segment, or ends the path: what `normalize` would change. */
const UNNORMALISED = /\/(?:\.\.?)?(?:\/|$)/;

/** The payload of `paths` (none: no bytes). */
export function encodeGlobPaths(paths: readonly string[]): Uint8Array {
  return paths.length === 0 ? new Uint8Array(0) : new TextEncoder().encode(`${paths.join('\0')}\0`);
}

/**
 * The paths of a payload when each is an absolute, normalised path of at most `limit` characters,
 * below the (normalised) directory `start`, each once; otherwise what is wrong with them.
 */
export function readGlobPaths(
  payload: Uint8Array,
  start: string,
  limit: number,
): string[] | { wrong: string } {
  if (payload.length === 0) return [];
  let paths: string[];
  try {
    if (payload[payload.length - 1] !== 0) throw new Error('the last path has no NUL');
    // A leading byte-order mark is kept, not dropped: the first path must then fail as not absolute.
    paths = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
      .decode(payload.subarray(0, -1))
      .split('\0');
  } catch {
    return { wrong: 'the paths are not UTF-8 text of NUL-ended paths' };
  }
  const below = start === '/' ? '/' : `${start}/`;
  // From the slash that ends `below`, a path below start (itself normalised) goes on.
  const from = below.length - 1;
  for (const path of paths) {
    // What `normalize` checks, without normalising each of thousands of paths (no NUL: the payload is
    // split on them); only a path holding a `/.` needs the expression.
    if (path.length > limit || path.charCodeAt(0) !== SLASH) {
      return { wrong: 'a path is not an absolute, normalised path' };
    }
    if (!path.startsWith(below) || path.length === below.length)
      return { wrong: 'a path is not below start' };
    if (
      path.indexOf('//', from) !== -1 ||
      path.charCodeAt(path.length - 1) === SLASH ||
      (path.indexOf('/.', from) !== -1 && UNNORMALISED.test(path))
    ) {
      return { wrong: 'a path is not an absolute, normalised path' };
    }
  }
  if (new Set(paths).size !== paths.length) return { wrong: 'a path comes twice' };
  return paths;
}
