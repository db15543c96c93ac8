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
import { type WalkEntryKind, walkTree } from './walk-tree.ts';

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
  /** Real locations of the matches, in walk order, at most `maxResults`. */
  paths: string[];
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
 * The scan itself, without arguments or settings: absolute paths of the matches in walk order, at most
 * `maxResults`, and whether more existed. The pattern's leading literal segments (`..` and absolute
 * prefixes included) are applied to its spelling and the directory they name is resolved once; from there
 * the walk goes through held directories with links refused (see fs/walk-tree.ts), matching each entry's
 * path below that directory, so a directory swapped for a link meanwhile is never listed. Paths are
 * the entries' real locations (the held directory's real path and the entry's name); `globStart`
 * spells the start directory as the pattern did. A `..` after a segment with glob syntax matches
 * nothing. Exported for the benchmark.
 */
export async function scanGlob(options: GlobScanOptions): Promise<GlobScan> {
  const negated = options.pattern.startsWith('!');
  const excluded = negated ? new Bun.Glob(options.pattern.slice(1)) : undefined;
  const { base, rest } = negated
    ? { base: options.root, rest: '**' }
    : splitPattern(options.pattern, options.root);
  const admits = options.admits ?? (() => true);
  if (rest === undefined) return { ...scanLiteral(base, admits), truncated: false };
  let real: string;
  try {
    // Resolving the literal prefix by name only decides where the walk starts; it is then opened at that
    // real location with links refused.
    real = await realpath(base);
  } catch {
    return { start: base, paths: [], truncated: false };
  }
  let held: HeldDirectory;
  try {
    held = HeldDirectory.open(real);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOTDIR' || code === 'ENOENT') return { start: real, paths: [], truncated: false };
    // A link where the resolved prefix had none: swapped since (described as the path changing).
    throw describeSystemError(error, 'search', options.shown ?? options.root);
  }
  const matcher = new Bun.Glob(rest);
  const descendsInto = createDescentFilter(rest);
  const skipsName = dotNameFilter(options.dot, rest);
  const prefix = real.endsWith('/') ? real : `${real}/`;
  const skipsDirectory = options.skipsDirectory;
  const paths: string[] = [];
  let checked = 0;
  try {
    for (const entry of walkTree(held, {
      ...(skipsName === undefined ? {} : { skipsName }),
      descends: (directory) =>
        descendsInto(directory.relative) &&
        !skipsDirectory?.(entryLocation(directory.directory.path, directory.name)),
    })) {
      if ((++checked & 1023) === 0 && options.signal?.aborted) throw options.signal.reason;
      if (!matcher.match(entry.relative)) continue;
      if (excluded?.match(entry.relative)) continue;
      if (!admits(entry.directory, entry.name, entry.kind)) continue;
      if (paths.length === options.maxResults) return { start: real, paths, truncated: true };
      paths.push(prefix + entry.relative);
    }
  } finally {
    held.close();
  }
  return { start: real, paths, truncated: false };
}

/**
 * A pattern without glob syntax: the one path it names, at its real location (its directory's real
 * location and its name), when it exists and is admitted.
 */
function scanLiteral(
  path: string,
  admits: (directory: HeldDirectory, name: string, kind: WalkEntryKind) => boolean,
): { start: string; paths: string[] } {
  if (path === '/') return { start: '/', paths: [] };
  let parent: HeldDirectory;
  try {
    parent = HeldDirectory.open(realpathSync(dirname(path)));
  } catch {
    return { start: dirname(path), paths: [] };
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
    return {
      start: parent.path,
      paths: admits(parent, name, kind) ? [entryLocation(parent.path, name)] : [],
    };
  } catch {
    return { start: parent.path, paths: [] };
  } finally {
    parent.close();
  }
}
