/**
 * The glob scan: the paths below a real directory that match a glob pattern (`Bun.Glob` syntax), walked
 * through held directory descriptors with links refused (see walk-tree.ts), so a directory swapped for a
 * link while the scan runs is never listed. The pattern's leading literal segments (`..` and an absolute
 * prefix included) are applied to its spelling first and name the directory the walk starts from; each
 * entry below it is matched on its path relative to that directory and passed to the caller's filter
 * (the access policy's walk entry filter) with the held directory it was listed in. Matches come back
 * at their real locations, below the real location of that start directory; `globStart` gives the
 * pattern's own spelling of it, lexically, so a caller can report them as the pattern spelled them.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { entryLocation } from '../access/walk-entry-filter.ts';
import { describeSystemError } from './describe-system-error.ts';
import { dotNameFilter } from './dot-name-filter.ts';
import { GlobMatchCollector, GlobMatchList } from './glob-match-list.ts';
import { type WalkEntryKind, type WalkListingOptions, walkListings } from './walk-tree.ts';

export interface GlobScanOptions {
  pattern: string;
  /** Real absolute directory to scan. */
  root: string;
  /** How errors name the search (the model's pattern); `root` when omitted. */
  shown?: string;
  dot: boolean;
  maxResults: number;
  signal?: AbortSignal;
  /**
   * Candidate filter (the access policy's walk entry filter): entry `name` of `directory`, held at its real
   * location, that matched the pattern.
   */
  admits?: (directory: HeldDirectory, name: string, kind: WalkEntryKind) => boolean;
  /** A directory (real absolute path) for which this returns true is not entered. */
  skipsDirectory?: (absolute: string) => boolean;
}

/** A segment without glob syntax names one entry (or is `.` / `..`). */
function isLiteralSegment(segment: string): boolean {
  return !/[*?[\]{}\\!]/.test(segment);
}

/**
 * Splits a pattern into its leading literal directory (lexical, `.` and `..` applied) and the rest, which
 * starts with a segment that has glob syntax; `rest` is undefined when the whole pattern is literal.
 */
function splitPattern(pattern: string, root: string): { base: string; rest: string | undefined } {
  const segments = pattern.split('/');
  let base = root;
  if (pattern.startsWith('/')) base = '/';
  let index = 0;
  for (; index < segments.length; index += 1) {
    const segment = segments[index]!;
    if (segment === '') continue;
    if (!isLiteralSegment(segment)) break;
    base = resolve(base, segment);
  }
  const rest = segments.slice(index).filter((segment) => segment !== '');
  return { base, rest: rest.length === 0 ? undefined : rest.join('/') };
}

/**
 * The pattern's own spelling of the directory its matches lie below, from the real directory `root`:
 * its leading literal segments applied lexically (for a pattern without glob syntax, the directory
 * holding the one path it names; for a `!` pattern, `root`). No filesystem access.
 */
export function globStart(pattern: string, root: string): string {
  if (pattern.startsWith('!')) return root;
  const { base, rest } = splitPattern(pattern, root);
  return rest === undefined ? dirname(base) : base;
}

/** What a scan found: matches at their real locations, below the real location `start`. */
export interface GlobScan {
  /** Real location of the directory the matches lie below (see `globStart` for its spelling). */
  start: string;
  /** The matches, below `start`, in walk order, at most `maxResults`. */
  matches: GlobMatchList;
  truncated: boolean;
}

/**
 * Whether entries below a directory at `depth` (its relative path has `depth` segments, the last being
 * `name`) can still match `rest`: before a `**`, each level must match its own segment. Braces holding a
 * `/` span segments, so such a pattern is not pruned.
 */
function createDescentFilter(rest: string): (relative: string) => boolean {
  if (/\{[^}]*\/[^}]*\}/.test(rest)) return () => true;
  const segments = rest.split('/');
  const globstar = segments.indexOf('**');
  const levels = (globstar < 0 ? segments.slice(0, -1) : segments.slice(0, globstar)).map(
    (segment) => new Bun.Glob(segment),
  );
  return (relative) => {
    const names = relative.split('/');
    if (globstar < 0 && names.length > levels.length) return false;
    return names.every((name, index) => index >= levels.length || levels[index]!.match(name));
  };
}

/**
 * What a walk below a glob's start matches, as plain data: every walk of one pattern builds the same
 * matchers from it (here, and in each glob thread, glob-thread.ts).
 */
export interface GlobWalkPattern {
  /** The part of the pattern below the start (`**` for a `!` pattern). */
  rest: string;
  /** A `!` pattern's own pattern: what is left out. */
  excluded?: string;
  dot: boolean;
}

/** A {@link GlobWalkPattern}'s matchers. */
export interface GlobWalk {
  /** Whether entry `name`, at `relative` below the start, matches. */
  matches(relative: string, name: string): boolean;
  descendsInto(relative: string): boolean;
  skipsName: ((name: string) => boolean) | undefined;
}

/**
 * A rest of the form `**` followed by one segment matches exactly the paths whose last name matches
 * that segment (`Bun.Glob.match` gives dots no meaning of their own; the walk's dot rule is
 * `skipsName`'s): then the name alone is matched, and no entry's path is built for it. A segment
 * with braces may hold a `/`, and one with `!` is not plain, so those are matched whole.
 */
const LAST_SEGMENT_ONLY = /^\*\*\/([^/{}!]+)$/;

export function compileGlobWalk(pattern: GlobWalkPattern): GlobWalk {
  const descendsInto = createDescentFilter(pattern.rest);
  const skipsName = dotNameFilter(pattern.dot, pattern.rest);
  if (pattern.excluded === undefined) {
    if (pattern.rest === '**') return { matches: () => true, descendsInto, skipsName };
    const last = LAST_SEGMENT_ONLY.exec(pattern.rest)?.[1];
    if (last !== undefined && last !== '**') {
      const segment = new Bun.Glob(last);
      return { matches: (_relative, name) => segment.match(name), descendsInto, skipsName };
    }
  }
  const matcher = new Bun.Glob(pattern.rest);
  const excluded = pattern.excluded === undefined ? undefined : new Bun.Glob(pattern.excluded);
  return {
    matches: (relative) => matcher.match(relative) && !excluded?.match(relative),
    descendsInto,
    skipsName,
  };
}

/** What a glob's walk keeps of a directory and where it goes on (walk-tree.ts), for `walk`. */
export function globListingOptions(
  walk: GlobWalk,
  skipsDirectory?: (absolute: string) => boolean,
): WalkListingOptions {
  return {
    skipsName: walk.skipsName,
    keeps: (relative, name) => walk.matches(relative, name),
    descends: (relative, name, directory) =>
      walk.descendsInto(relative) && !skipsDirectory?.(entryLocation(directory.path, name)),
  };
}

/** One walk of a subtree for a glob: where it starts and what bounds it. */
export interface GlobCollection {
  /** The subtree's root, held at its real location. */
  directory: HeldDirectory;
  /** Its path below the glob's start ('' for the start itself). */
  base: string;
  walk: GlobWalk;
  /** Matches collected at most; one more admitted match past them makes the walk truncated. */
  cap: number;
  aborted: () => boolean;
  admits: (directory: HeldDirectory, name: string, kind: WalkEntryKind) => boolean;
  skipsDirectory?: ((absolute: string) => boolean) | undefined;
}

/**
 * Walks one subtree for a glob into `collector`, in walk order, through held directories with links
 * refused (walk-tree.ts: a directory swapped for a link between its listing and its descent is not
 * entered): each entry whose path below the start matches and that `admits` admits. Returns true when
 * it stopped at a match past `cap` (truncated), false when the walk ended or `aborted` said so
 * (asked at each directory and every 1024 matches).
 */
export function collectGlobMatches(collection: GlobCollection, collector: GlobMatchCollector): boolean {
  const { directory: root, walk, cap, admits } = collection;
  let checked = 0;
  for (const listing of walkListings(root, {
    ...globListingOptions(walk, collection.skipsDirectory),
    base: collection.base,
  })) {
    if (collection.aborted()) return false;
    const { directory, relative, kinds } = listing;
    for (const name of listing.names) {
      if ((++checked & 1023) === 0 && collection.aborted()) return false;
      if (!admits(directory, name, kinds.get(name) ?? 'file')) continue;
      if (collector.count === cap) return true;
      collector.add(relative, name);
    }
  }
  return false;
}

/** A scan below `start` that found nothing. */
function noMatches(start: string): GlobScan {
  return { start, matches: new GlobMatchList(start, [], 0), truncated: false };
}

/** The start of a scan and the walk below it: what {@link scanGlob} and the threaded scan share. */
export interface GlobScanStart {
  /** Real location of the start directory, held. */
  held: HeldDirectory;
  pattern: GlobWalkPattern;
}

/**
 * The scan itself, without arguments or settings: the matches in walk order, at most `maxResults`, and
 * whether more existed. The pattern's leading literal segments (`..` and absolute prefixes included) are
 * applied to its spelling and the directory they name is resolved once; from there the walk goes
 * through held directories with links refused (see fs/walk-tree.ts), matching each entry's path below
 * that directory, so a directory swapped for a link meanwhile is never listed. Paths are the entries'
 * real locations (the held directory's real path and the entry's name); `globStart` spells the start
 * directory as the pattern did. A `..` after a segment with glob syntax matches nothing. With `walks`,
 * the walk below the start may be handed to it instead (glob threads, scan-glob-in-threads.ts): it
 * returns undefined to leave it here. Exported for the benchmark.
 */
export async function scanGlob(
  options: GlobScanOptions,
  walks?: (start: GlobScanStart, options: GlobScanOptions) => Promise<GlobScan | undefined>,
): Promise<GlobScan> {
  const negated = options.pattern.startsWith('!');
  const { base, rest } = negated
    ? { base: options.root, rest: '**' }
    : splitPattern(options.pattern, options.root);
  const admits = options.admits ?? (() => true);
  if (rest === undefined) return scanLiteral(base, admits);
  let real: string;
  try {
    // Resolving the literal prefix by name only decides where the walk starts; it is then opened at that
    // real location with links refused.
    real = await realpath(base);
  } catch {
    return noMatches(base);
  }
  let held: HeldDirectory;
  try {
    held = HeldDirectory.open(real);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTDIR' || code === 'ENOENT') return noMatches(real);
    // A link where the resolved prefix had none: swapped since (described as the path changing).
    throw describeSystemError(error, 'search', options.shown ?? options.root);
  }
  const pattern: GlobWalkPattern = {
    rest,
    dot: options.dot,
    ...(negated ? { excluded: options.pattern.slice(1) } : {}),
  };
  try {
    const elsewhere = await walks?.({ held, pattern }, options);
    if (elsewhere !== undefined) return elsewhere;
    const collector = new GlobMatchCollector();
    const truncated = collectGlobMatches(
      {
        directory: held,
        base: '',
        walk: compileGlobWalk(pattern),
        cap: options.maxResults,
        aborted: () => options.signal?.aborted === true,
        admits,
        skipsDirectory: options.skipsDirectory,
      },
      collector,
    );
    if (options.signal?.aborted) throw options.signal.reason;
    return { start: real, matches: new GlobMatchList(real, [collector.text()], collector.count), truncated };
  } finally {
    held.close();
  }
}

/**
 * A pattern without glob syntax: the one path it names, at its real location (its directory's real
 * location and its name), when it exists and is admitted.
 */
function scanLiteral(
  path: string,
  admits: (directory: HeldDirectory, name: string, kind: WalkEntryKind) => boolean,
): GlobScan {
  if (path === '/') return noMatches('/');
  let parent: HeldDirectory;
  try {
    parent = HeldDirectory.open(realpathSync(dirname(path)));
  } catch {
    return noMatches(dirname(path));
  }
  try {
    const name = basename(path);
    const stats = parent.statEntry(name);
    const kind: WalkEntryKind = stats.isFile()
      ? 'file'
      : stats.isDirectory()
        ? 'directory'
        : stats.isSymbolicLink()
          ? 'link'
          : 'other';
    if (!admits(parent, name, kind)) return noMatches(parent.path);
    const matches = new GlobMatchList(parent.path, [`/\0${name}`], 1);
    return { start: parent.path, matches, truncated: false };
  } catch {
    return noMatches(parent.path);
  } finally {
    parent.close();
  }
}
