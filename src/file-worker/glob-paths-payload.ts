/**
 * How a glob's matches cross the pipe: as the reply's payload, the UTF-8 of their grouped list
 * (tools/fs/glob-match-list.ts: each directory once, then the names of its matches) with every token
 * ended by a NUL, so a tree of thousands of matches sends each directory once and each match as its
 * one name. The walk lists a directory's entries together and in name order, so its matches form one
 * group in ascending order: the server requires that, which proves no path comes twice without holding
 * a set of them all.
 *
 * The server reads the payload back here, judging every token as untrusted input, and its validator
 * (`globReply`, glob-reply.ts) judges the rest of the reply.
 */
import { type GlobMatchList, globMatchPrefix } from '../tools/fs/glob-match-list.ts';

const SLASH = 0x2f;
/** A slash that starts an empty, `.` or `..` segment, or ends the path: what `normalize` would change. */
const UNNORMALISED = /\/(?:\.\.?)?(?:\/|$)/;

/** The payload of `matches` (none: no bytes). */
export function encodeGlobMatches(matches: GlobMatchList): Uint8Array {
  return matches.count === 0 ? new Uint8Array(0) : new TextEncoder().encode(`${matches.text()}\0`);
}

/**
 * The absolute paths of a payload when it is well formed: directory tokens normalised and each once,
 * each followed by at least one name; names that are one path component, strictly ascending within
 * their directory; every path at most `limit` characters. Otherwise what is wrong with it.
 */
export function readGlobPaths(
  payload: Uint8Array,
  start: string,
  limit: number,
): string[] | { wrong: string } {
  if (payload.length === 0) return [];
  let tokens: string[];
  try {
    if (payload[payload.length - 1] !== 0) throw new Error('the last token has no NUL');
    // A leading byte-order mark is kept, not dropped: the first token must then fail as no directory.
    tokens = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
      .decode(payload.subarray(0, -1))
      .split('\0');
  } catch {
    return { wrong: 'the matches are not UTF-8 text of NUL-ended tokens' };
  }
  const prefix = globMatchPrefix(start);
  const paths: string[] = [];
  const directories = new Set<string>();
  /** The directory of the group being read, as the start of its paths; undefined before the first. */
  let base: string | undefined;
  let last: string | undefined;
  for (const token of tokens) {
    if (token.charCodeAt(0) === SLASH) {
      if (base !== undefined && last === undefined) return { wrong: 'a directory holds no matches' };
      // What `normalize` checks, without normalising each token (no NUL: the payload is split on them).
      if (token !== '/' && (token.charCodeAt(token.length - 1) === SLASH || UNNORMALISED.test(token))) {
        return { wrong: 'a directory is not a normalised path below start' };
      }
      if (directories.has(token)) return { wrong: 'a directory comes twice' };
      directories.add(token);
      base = token === '/' ? prefix : `${prefix}${token.slice(1)}/`;
      last = undefined;
      continue;
    }
    if (base === undefined) return { wrong: 'a match comes before any directory' };
    if (token === '' || token === '.' || token === '..' || token.indexOf('/') !== -1) {
      return { wrong: 'a match is not one name' };
    }
    // Code-unit order, the walk's: a name equal to or before the one before it is out of place.
    if (last !== undefined && !(token > last)) {
      return { wrong: 'the matches of a directory are not in ascending name order, each once' };
    }
    last = token;
    const path = base + token;
    if (path.length > limit) return { wrong: 'a path is longer than a path may be' };
    paths.push(path);
  }
  if (last === undefined) return { wrong: 'a directory holds no matches' };
  return paths;
}
