/**
 * glob's file work (the `globFiles` file operation, file-operations.ts): the model's `cwd` resolved and
 * decided by the call's access policy, found to be a directory through a verified descriptor, then
 * walked for the pattern (`scanGlob`) with every candidate decided on its real location by the policy's
 * walk entry filter (a symlink's target too) and the server's own directories not entered. The outcome
 * is data only: the real cwd, the real locations of the admitted matches, whether the cap cut them and
 * how many the policy left out; the tool words and spells them (tools/builtin/glob.ts).
 */
import { getAccessPolicy } from '../access/access-policy.ts';
import { protectedPathCovering } from '../access/reachable-set.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { createWalkEntryFilter } from '../access/walk-entry-filter.ts';
import { ToolExecutionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { fileWorkIsConfined } from './confined-file-work.ts';
import { describeSystemError } from './describe-system-error.ts';
import type { GlobOutcome, GlobRequest } from './file-operations.ts';
import type { GlobMatchList } from './glob-match-list.ts';
import { statVerified } from './open-verified-file.ts';
import { scanGlob } from './scan-glob.ts';
import { globThreadWalks } from './scan-glob-in-threads.ts';

/** A glob's outcome with its matches still grouped (glob-match-list.ts), as a file worker sends them. */
export interface GlobFileWork extends Omit<GlobOutcome, 'paths'> {
  matches: GlobMatchList;
}

export async function globFiles(request: GlobRequest, context: ToolContext): Promise<GlobOutcome> {
  const { matches, ...outcome } = await globFileWork(request, context);
  return { ...outcome, paths: matches.paths() };
}

/** {@link globFiles}, its matches left grouped. */
export async function globFileWork(request: GlobRequest, context: ToolContext): Promise<GlobFileWork> {
  const resolved = await resolveAndValidatePath(request.cwd, context, 'cwd');
  try {
    if (!statVerified(resolved).isDirectory()) {
      throw new ToolExecutionError(`cwd ${JSON.stringify(resolved.input)} is not a directory.`);
    }
  } catch (error) {
    throw describeSystemError(error, 'search', resolved.input);
  }
  const policy = await getAccessPolicy(context);
  const filter = createWalkEntryFilter(policy);
  // A confined file worker walks big trees in its kept glob threads (scan-glob-in-threads.ts).
  const walks = fileWorkIsConfined() ? globThreadWalks(policy, filter) : undefined;
  const { start, matches, truncated } = await scanGlob(
    {
      pattern: request.pattern,
      root: resolved.real,
      shown: request.pattern,
      dot: request.dot,
      maxResults: request.maxResults,
      signal: context.signal,
      admits: (directory, name, kind) => filter.admitsEntry(directory, name, kind === 'link'),
      // The server's own directories (a pattern from `/` meets /proc) are not walked: nothing in them may
      // be reported.
      skipsDirectory: (directory) => protectedPathCovering(policy.reachable, directory) !== undefined,
    },
    walks,
  );
  return { real: resolved.real, start, matches, truncated, refused: filter.refused };
}
