/**
 * glob: paths matching a glob pattern, evaluated by `Bun.Glob` (`*`, `**`, `?`, `[]`,
 * `{a,b}`; a leading `!` lists every path that does not match the rest). The walk is the call's file
 * operations' (`globFiles`: in the user's file worker, or in this process; see fs/glob-files.ts): every
 * candidate is decided on its real location by the call's access policy before it is reported, whatever
 * the pattern looks like (`..` anywhere, absolute patterns, a literal segment that is a symlink to a
 * directory outside); the tree is walked through held directory descriptors with links refused (see
 * `scanGlob`), so a directory swapped for a link while the walk runs is never listed; symlinks are
 * listed but not followed, and one whose target is out of reach is left out. The cwd and every match
 * are decided again here by the server's own policy (the second wall, fs/glob-matches.ts). Result
 * paths are re-anchored to the chat working directory (see fs/result-paths.ts); the `absolute` setting
 * opts out.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { PathListResult } from '../../contracts/tool-result-view.ts';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { expandToolPath } from '../access/tool-path-syntax.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError } from '../errors.ts';
import { admittedGlobMatches } from '../fs/glob-matches.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { getResultPathAnchor, toResultPath } from '../fs/result-paths.ts';
import { globCapNotice, policyOmissionNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { type SettingValues, setting } from '../tool-settings.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

export const GLOB_DEFAULT_MAX_RESULTS = 200;
export const GLOB_MAX_MAX_RESULTS = 5000;
export const GLOB_PATTERN_MAX_LENGTH = 1000;

/**
 * The `path_list` result view's shape, read by the web app's list; `cwd` is the argument as given, or
 * the resolved directory when it was omitted.
 */
export type GlobResult = PathListResult;

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
  ...PATH_ACCESS_SETTINGS,
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

  const cwd = cwdArgument ?? '.';
  const outcome = await fileOperationsFor(context).globFiles({ pattern, cwd, dot, maxResults });
  const policy = await getAccessPolicy(context);
  const cwdAbsolute = expandToolPath(cwd, policy.reachable);
  const { paths, refused: refusedByPolicy } = admittedGlobMatches(
    outcome,
    { pattern, shown: cwd, absolute: cwdAbsolute },
    policy,
  );
  const truncated = outcome.truncated;
  const anchor = getResultPathAnchor(context, absolute);
  const matches = paths.map((path) => toResultPath(path, anchor)).sort();
  const result: GlobResult = { pattern, cwd: cwdArgument ?? cwdAbsolute, matches, truncated };
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
  traits: readOnlyLocalTraits('path_list'),
  title: 'Glob',
  summary: 'Lets the model find files by name pattern.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings,
  execute: glob,
});

registerTool(globTool);
