/**
 * glob: paths matching a glob pattern, evaluated by `Bun.Glob` (`*`, `**`, `?`, `[]`,
 * `{a,b}`; a leading `!` lists every path that does not match the rest). Every candidate is decided on
 * its real location by the call's access policy before it is reported, whatever the pattern looks like
 * (`..` anywhere, absolute patterns, a literal segment that is a symlink to a directory outside); the
 * tree is walked through held directory descriptors with links refused (see `scanGlob`), so a directory
 * swapped for a link while the walk runs is never listed; symlinks are listed but not followed, and one
 * whose target is out of reach is left out. Result paths are re-anchored to the chat working directory
 * (see fs/result-paths.ts); the `absolute` setting opts out.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { SystemCallError } from '../../descriptors/system-call-error.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { protectedPathCovering } from '../access/reachable-set.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { createWalkGate, entryLocation } from '../access/walk-gate.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError, ToolExecutionError } from '../errors.ts';
import { describeSystemError } from '../fs/describe-system-error.ts';
import { dotNameFilter } from '../fs/dot-name-filter.ts';
import { statVerified } from '../fs/open-verified-file.ts';
import { PATH_POLICY_SETTINGS } from '../fs/path-policy-settings.ts';
import { getResultPathAnchor, toResultPath } from '../fs/result-paths.ts';
import { type WalkEntryKind, walkTree } from '../fs/walk-tree.ts';
import { globCapNotice, policyOmissionNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { type SettingValues, setting } from '../tool-settings.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

export const GLOB_DEFAULT_MAX_RESULTS = 200;
export const GLOB_MAX_MAX_RESULTS = 5000;
export const GLOB_PATTERN_MAX_LENGTH = 1000;

export interface GlobResult {
  pattern: string;
  /** The cwd argument as given, or the resolved directory when it was omitted. */
  cwd: string;
  matches: string[];
  truncated: boolean;
  /** Present only when `truncated`: what was left out and how to see it. */
  notice?: string;
}

export interface GlobScanOptions {
  pattern: string;
  /** Real absolute directory to scan. */
  root: string;
  dot: boolean;
  maxResults: number;
  signal?: AbortSignal;
  /**
   * Candidate filter (the access policy's walk gate): entry `name` of `directory`, held at its real
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
 * path below that directory, so a directory swapped for a link meanwhile is never listed. Reported paths
 * keep the pattern's spelling of the literal prefix. A `..` after a segment with glob syntax matches
 * nothing. Exported for the benchmark.
 */
export async function scanGlob(options: GlobScanOptions): Promise<{ paths: string[]; truncated: boolean }> {
  const negated = options.pattern.startsWith('!');
  const excluded = negated ? new Bun.Glob(options.pattern.slice(1)) : undefined;
  const { base, rest } = negated
    ? { base: options.root, rest: '**' }
    : splitPattern(options.pattern, options.root);
  const admits = options.admits ?? (() => true);
  if (rest === undefined) return { paths: scanLiteral(base, admits), truncated: false };
  let real: string;
  try {
    // Resolving the literal prefix by name only decides where the walk starts; it is then opened at that
    // real location with links refused.
    real = await realpath(base);
  } catch {
    return { paths: [], truncated: false };
  }
  let held: HeldDirectory;
  try {
    held = HeldDirectory.open(real);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOTDIR' || (error as { code?: unknown }).code === 'ENOENT')
      return { paths: [], truncated: false };
    throw error;
  }
  const matcher = new Bun.Glob(rest);
  const descendsInto = createDescentFilter(rest);
  const skipsName = dotNameFilter(options.dot, rest);
  const prefix = base.endsWith('/') ? base : `${base}/`;
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
      if (paths.length === options.maxResults) return { paths, truncated: true };
      paths.push(prefix + entry.relative);
    }
  } finally {
    held.close();
  }
  return { paths, truncated: false };
}

/** A pattern without glob syntax: the one path it names, when it exists and is admitted. */
function scanLiteral(
  path: string,
  admits: (directory: HeldDirectory, name: string, kind: WalkEntryKind) => boolean,
): string[] {
  if (path === '/') return [];
  let parent: HeldDirectory;
  try {
    parent = HeldDirectory.open(realpathSync(dirname(path)));
  } catch {
    return [];
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
    return admits(parent, name, kind) ? [path] : [];
  } catch {
    return [];
  } finally {
    parent.close();
  }
}

const parameters = Type.Object({
  pattern: Type.String({
    description: 'Glob pattern relative to cwd, e.g. "**/*.ts" or "src/**/{index,main}.ts".',
    minLength: 1,
    maxLength: GLOB_PATTERN_MAX_LENGTH,
  }),
  cwd: Type.Optional(
    Type.String({
      description:
        'Directory to search from: absolute, ~-prefixed, or relative to the working directory (default: the working directory).',
      minLength: 1,
    }),
  ),
});

const settings = {
  ...PATH_POLICY_SETTINGS,
  maxResults: setting.integer({
    label: 'Maximum results',
    description: 'Most paths one call returns; the result says truncated when more matched.',
    min: 1,
    max: GLOB_MAX_MAX_RESULTS,
    default: GLOB_DEFAULT_MAX_RESULTS,
  }),
  includeDotfiles: setting.boolean({
    label: 'Include dotfiles',
    description: 'Let * and ** match names that start with a dot.',
    default: false,
  }),
  absolute: setting.boolean({
    label: 'Absolute paths',
    description: 'Return absolute paths instead of paths relative to the working directory.',
    default: false,
  }),
};

async function glob(
  { pattern, cwd: cwdArgument }: Static<typeof parameters>,
  context: ToolContext,
  { maxResults, includeDotfiles: dot, absolute }: SettingValues<typeof settings>,
): Promise<GlobResult> {
  if (pattern.includes('\0')) throw new ToolArgumentError('Argument "pattern" contains a NUL byte.');

  const resolved = await resolveAndValidatePath(cwdArgument ?? '.', context, 'cwd');
  try {
    if (!statVerified(resolved).isDirectory()) {
      throw new ToolExecutionError(`cwd ${JSON.stringify(resolved.input)} is not a directory.`);
    }
  } catch (error) {
    throw describeSystemError(error, 'search', resolved.input);
  }
  const policy = await getAccessPolicy(context);
  const gate = createWalkGate(policy);
  let scan: { paths: string[]; truncated: boolean };
  try {
    scan = await scanGlob({
      pattern,
      root: resolved.real,
      dot,
      maxResults,
      signal: context.signal,
      admits: (directory, name, kind) => gate.admitsEntry(directory, name, kind === 'link'),
      // The server's own directories (a pattern from `/` meets /proc) are not walked: nothing in them may
      // be reported.
      skipsDirectory: (directory) => protectedPathCovering(policy.reachable, directory) !== undefined,
    });
  } catch (error) {
    // The walk's start opened with links refused: a component swapped since it was resolved.
    if (error instanceof SystemCallError) throw describeSystemError(error, 'search', pattern);
    throw error;
  }
  const { paths, truncated } = scan;
  const refusedByPolicy = gate.refused;
  const anchor = getResultPathAnchor(context, absolute);
  const matches = paths.map((path) => toResultPath(path, anchor)).sort();
  const result: GlobResult = { pattern, cwd: cwdArgument ?? resolved.absolute, matches, truncated };
  const notices = [
    ...(truncated ? [globCapNotice(maxResults)] : []),
    ...(refusedByPolicy > 0 ? [policyOmissionNotice(refusedByPolicy, 'paths')] : []),
  ];
  if (notices.length > 0) result.notice = notices.join(' ');
  return result;
}

export const globTool = defineTool({
  name: 'glob',
  description:
    'Finds files and directories whose path matches a glob pattern (*, **, ?, [abc], {a,b}; a leading ! lists everything that does not match). Returns paths relative to the working directory, sorted.',
  parameters,
  traits: readOnlyLocalTraits('json'),
  title: 'Glob',
  summary: 'Lets the model find files by name pattern.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings,
  execute: glob,
});

registerTool(globTool);
