/**
 * What one grep call searches for and within which limits, as one structured-clone safe object: the grep
 * tool builds it once from the model's arguments and the user's settings (`grepOptionsFrom` refuses an
 * invalid pattern or glob there, before anything is walked), and the search loop, the calling thread's
 * executor and every worker thread read that same object unchanged. A limit is therefore named in one
 * type only, whichever thread applies it.
 */
import { ToolArgumentError } from '../../errors.ts';
import { compileGrepPattern } from './compile-grep-pattern.ts';
import type { GrepMatcherSpec } from './text-searcher.ts';

export interface GrepOptions {
  /** The compiled pattern: engine, case and prefilter (rebuilt into a matcher in each thread). */
  spec: GrepMatcherSpec;
  /** Directory searches only: the files walked, as the walk matches them (`**\/` added to a bare name). */
  glob?: string;
  /** Whether files and directories whose names start with a dot are walked. */
  dot: boolean;
  /** Most matching lines of the whole search; one more proves the result was cut. */
  maxResults: number;
  /** Most matching lines listed for one file. */
  maxMatchesPerFile: number;
  /** Files larger than this are not searched (reported as too large). */
  maxFileSizeBytes: number;
}

/** The grep tool's arguments that shape the search. */
export interface GrepArguments {
  pattern: string;
  glob?: string | undefined;
  caseInsensitive?: boolean | undefined;
}

/** The grep tool's settings that bound the search. */
export interface GrepLimits {
  maxResults: number;
  maxMatchesPerFile: number;
  maxFileSizeBytes: number;
  includeDotfiles: boolean;
}

/** A filter without a `/` matches file names at any depth. */
function walkGlob(glob: string | undefined): string | undefined {
  if (glob === undefined) return undefined;
  return glob.includes('/') ? glob : `**/${glob}`;
}

/**
 * The options of one call. Throws GrepPatternError (invalid or oversized pattern) or ToolArgumentError
 * (a glob holding a NUL byte).
 */
export function grepOptionsFrom(args: GrepArguments, limits: GrepLimits): GrepOptions {
  const spec = compileGrepPattern(args.pattern, args.caseInsensitive ?? false);
  if (args.glob?.includes('\0')) throw new ToolArgumentError('Argument "glob" contains a NUL byte.');
  const options: GrepOptions = {
    spec,
    dot: limits.includeDotfiles,
    maxResults: limits.maxResults,
    maxMatchesPerFile: limits.maxMatchesPerFile,
    maxFileSizeBytes: limits.maxFileSizeBytes,
  };
  const glob = walkGlob(args.glob);
  if (glob !== undefined) options.glob = glob;
  return options;
}
