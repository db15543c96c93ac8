/**
 * A file worker's glob reply, judged as untrusted input like every reply (file-worker-replies.ts): the
 * matches come as the payload (glob-paths-payload.ts), and the outcome is a fresh one of exactly
 * `GlobOutcome`'s shape, bounded by the cap the call asked for, or the reason it is not one (which
 * stops the worker and fails the call). The glob tool then decides every match again with the server's
 * own policy (tools/fs/glob-matches.ts).
 */
import type { GlobOutcome } from '../tools/fs/file-operations.ts';
import { count, InvalidReplyError, PATH_LIMIT, realPath, record } from './file-worker-replies.ts';
import { readGlobPaths } from './glob-paths-payload.ts';

/**
 * A glob's outcome: the matches come as the payload, `count` of them, each a real absolute path below
 * `start`, each once (glob-paths-payload.ts), at most `maxResults`; `truncated` only with all
 * `maxResults` sent (the walk stops at the first match past the cap).
 */
export function globReply(result: unknown, payload: Uint8Array, maxResults: number): GlobOutcome {
  const fields = record(result, 'the result');
  const expected = ['count', 'real', 'refused', 'start', 'truncated'];
  if (Object.keys(fields).sort().join() !== expected.join()) {
    throw new InvalidReplyError(`the result's fields are not exactly ${expected.join(', ')}`);
  }
  const real = realPath(fields.real, 'real');
  const start = realPath(fields.start, 'start');
  const total = count(fields.count, 'count');
  if (total > maxResults) {
    throw new InvalidReplyError(`count is ${total}, more than the ${maxResults} asked for`);
  }
  if (typeof fields.truncated !== 'boolean') throw new InvalidReplyError('truncated is not true or false');
  if (fields.truncated && total !== maxResults) {
    throw new InvalidReplyError(`it says truncated with ${total} paths of the ${maxResults} asked for`);
  }
  const paths = readGlobPaths(payload, start, PATH_LIMIT);
  if (!Array.isArray(paths)) throw new InvalidReplyError(paths.wrong);
  if (paths.length !== total)
    throw new InvalidReplyError(`count is ${total}, but it sent ${paths.length} paths`);
  const refused = count(fields.refused, 'refused');
  return { real, start, paths, truncated: fields.truncated, refused };
}
