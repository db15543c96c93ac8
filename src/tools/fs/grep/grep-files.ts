/**
 * The file work of one grep call (the `grepFiles` file operation): resolve the model's path and decide
 * it, say whether it is a file or a directory, build the call's access policy, and run the search loop
 * (run-grep-search.ts) with that policy deciding every candidate. The grep tool words the outcome; this
 * runs wherever the call's file work runs (in the server, or in the user's file worker, which calls
 * this same function).
 *
 * Guarantees:
 * - Every file searched is one the policy admitted at its real location (the walk descends through held
 *   directories with links refused, so a candidate's path is where it lies); the protected set is not
 *   walked at all; each refused candidate is counted.
 * - Each matching line comes without a trailing CR and cut at MAX_LINE_CHARACTERS (cut-notices.ts).
 * - The call's signal stops the search (worker threads terminated) and fails the call with its reason.
 * - A file is opened with a link refused on every component of its path, except where the process is a
 *   confined file worker and the call's policy narrows nothing below the reachable set (see
 *   {@link directOpenIsBounded}).
 */
import { getAccessPolicy } from '../../access/access-policy.ts';
import { protectedPathCovering } from '../../access/reachable-set.ts';
import { resolveAndValidatePath } from '../../access/resolve-and-validate-path.ts';
import { getEnabledPathListSetting } from '../../arg-parsing.ts';
import { ToolExecutionError } from '../../errors.ts';
import { cutLine } from '../../output/cut-notices.ts';
import type { ToolContext } from '../../types.ts';
import { fileWorkIsConfined } from '../confined-file-work.ts';
import { describeSystemError } from '../describe-system-error.ts';
import {
  GREP_TOO_LARGE_NAMED,
  GREP_UNSEARCHED_NAMED,
  type GrepFileOutcome,
  type GrepFilesRequest,
  type GrepOutcome,
} from '../file-operations.ts';
import { statVerified } from '../open-verified-file.ts';
import { runGrepSearch } from './run-grep-search.ts';
import type { FileOpening } from './search-file.ts';

/**
 * Whether a file may be opened by its path with only its last component's link refused (`direct`),
 * instead of with a link refused on every component (`verified`, one `openat2` through bun:ffi per
 * file). A component can only turn into a link in a race (the walk descends by held descriptors), and
 * what such a link leads to is bounded by the mount namespace the open resolves it in. In a confined
 * file worker that namespace holds the reachable set with the protected set covered, and the system's
 * read-only runtime, as the user's uid: exactly what the policy admits when the call's settings name
 * no `deniedPaths` or `allowedPaths`, so a raced link reaches nothing the policy would refuse that the
 * user's own sandbox does not show them anyway. Denied or allowed paths narrow the policy below the
 * namespace (the worker's mounts are the reachable set's, not the settings'), so then every open is
 * verified, as it always is in the server.
 */
export function directOpenIsBounded(context: ToolContext): boolean {
  if (!fileWorkIsConfined()) return false;
  const parameters = context.settings.parameters;
  return (
    getEnabledPathListSetting(parameters, 'deniedPaths').length === 0 &&
    getEnabledPathListSetting(parameters, 'allowedPaths').length === 0
  );
}

export async function grepFiles(request: GrepFilesRequest, context: ToolContext): Promise<GrepOutcome> {
  const { path, options } = request;
  const resolved = await resolveAndValidatePath(path, context);
  let rootIsFile: boolean;
  try {
    const stats = statVerified(resolved);
    rootIsFile = stats.isFile();
    if (!rootIsFile && !stats.isDirectory()) {
      throw new ToolExecutionError(
        `Cannot search ${JSON.stringify(path)}: it is neither a file nor a directory.`,
      );
    }
  } catch (error) {
    throw describeSystemError(error, 'search', path);
  }
  const policy = await getAccessPolicy(context);
  const opening: FileOpening = directOpenIsBounded(context) ? 'direct' : 'verified';
  const admitsAll = !rootIsFile && policy.admitsEveryDescendant(resolved.real);
  let refused = 0;
  const search = await runGrepSearch(options, {
    root: resolved.real,
    shown: path,
    rootIsFile,
    signal: context.signal,
    opening,
    // A file worker's threads serve its user's next search too (its main thread serves no one else).
    keepThreads: fileWorkIsConfined(),
    // The walk starts at a real directory and descends through held directories with links refused, so a
    // candidate's path is its real location (a component swapped meanwhile fails the file's open).
    allows: (candidate) => {
      if (admitsAll) return true;
      const allowed = policy.admits(candidate);
      if (!allowed) refused += 1;
      return allowed;
    },
    // The server's own directories below the root (an operator-mode search of `/` meets /proc) are not
    // walked at all: nothing in them may be reported, so there is nothing to count either.
    skipsDirectory: (directory) => protectedPathCovering(policy.reachable, directory) !== undefined,
  });
  const files: GrepFileOutcome[] = [];
  const tooLarge: GrepOutcome['tooLarge'] = { files: [], count: 0 };
  for (const outcome of search.files) {
    if (outcome.status === 'too_large') {
      tooLarge.count += 1;
      if (tooLarge.files.length < GREP_TOO_LARGE_NAMED) tooLarge.files.push(outcome.file);
      continue;
    }
    // Lines travel as the tool shows them, so a worker's reply stays small whatever a file holds.
    for (const match of outcome.matches) match.text = cutLine(match.text.replace(/\r$/, '')).text;
    outcome.unsearchedLines = outcome.unsearchedLines.slice(0, GREP_UNSEARCHED_NAMED);
    files.push(outcome);
  }
  return {
    real: resolved.real,
    rootIsFile,
    files,
    tooLarge,
    filesScanned: search.filesScanned,
    hitMaxResults: search.hitMaxResults,
    refused,
  };
}
