/**
 * The second wall of a glob (see file-operations.ts): wherever the file work ran, every location its
 * outcome names is decided again here with the server's own access policy, lexically, without asking
 * the filesystem. The cwd must be allowed (refused as the tool's own resolution would refuse it); each
 * match outside what the policy admits (the reachable set, the protected set, the path settings) is
 * left out and counted with the ones the file work already left out. The admitted matches are then
 * spelled as the pattern spelled them: the real start directory replaced by the pattern's own
 * spelling of it (`globStart`), worked out here from the pattern and the real cwd.
 */
import type { AccessPolicy } from '../access/access-policy.ts';
import type { GlobOutcome } from './file-operations.ts';
import { globStart } from './scan-glob.ts';

export interface GlobMatches {
  /** The admitted matches as absolute paths in the pattern's spelling, in walk order. */
  paths: string[];
  /** Matches left out by the policy: by the file work and here. */
  refused: number;
}

function withSlash(directory: string): string {
  return directory.endsWith('/') ? directory : `${directory}/`;
}

/** What the call asked: the pattern, and the cwd argument as written and at its lexical location. */
export interface GlobAsked {
  pattern: string;
  shown: string;
  absolute: string;
}

/**
 * Decides `outcome` of the glob `asked`: throws the policy's refusal of the cwd, and returns the
 * matches it admits.
 */
export function admittedGlobMatches(
  outcome: GlobOutcome,
  asked: GlobAsked,
  policy: AccessPolicy,
): GlobMatches {
  const { pattern, shown, absolute } = asked;
  policy.require(outcome.real, 'read', shown, absolute);
  const realPrefix = withSlash(outcome.start);
  const spelledPrefix = withSlash(globStart(pattern, outcome.real));
  // Most patterns spell their start as it really is: then the paths are reported as they came.
  const respelled = spelledPrefix !== realPrefix;
  const paths: string[] = [];
  let refused = outcome.refused;
  // Where the policy admits the whole tree below the start, a match below it needs no check of its own.
  const whole = policy.admitsEveryDescendant(outcome.start);
  for (const path of outcome.paths) {
    // A validated reply names only paths below its start; anything else is not a match of this pattern.
    if (!path.startsWith(realPrefix) || (!whole && !policy.admits(path))) {
      refused += 1;
      continue;
    }
    paths.push(respelled ? spelledPrefix + path.slice(realPrefix.length) : path);
  }
  return { paths, refused };
}
