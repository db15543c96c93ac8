/**
 * grep: lines matching a regular expression in a
 * file or under a directory, as `{pattern, path, matches: {file, line, text}[], filesScanned, truncated}`.
 *
 * Safety: a model-supplied pattern never freezes the server and never yields a silent false negative.
 * Patterns RE2 can express run on a linear-time engine (or a plain literal search); the rest run on
 * JavaScript's engine in worker threads that are terminated when the call's budget ends, and any line
 * where that engine may have given up is reported (`truncated` and a `notice` naming the file and line)
 * instead of being passed over. Binary files (NUL in the first 8 KiB, the probe read_file uses) and files
 * over `maxFileSizeBytes` are skipped; skipped-for-size files are named in the notice.
 */
import { type Static, Type } from '@sinclair/typebox';
import { getAccessPolicy } from '../access/access-policy.ts';
import { protectedPathCovering } from '../access/reachable-set.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { defineTool } from '../define-tool.ts';
import { ToolExecutionError } from '../errors.ts';
import { describeSystemError } from '../fs/describe-system-error.ts';
import { GREP_PATTERN_MAX_LENGTH } from '../fs/grep/compile-grep-pattern.ts';
import { grepOptionsFrom } from '../fs/grep/grep-options.ts';
import { runGrepSearch } from '../fs/grep/run-grep-search.ts';
import { statVerified } from '../fs/open-verified-file.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { getResultPathAnchor, toResultPath } from '../fs/result-paths.ts';
import { cutLine, grepCapNotice, policyOmissionNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { type SettingValues, setting } from '../tool-settings.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

export const GREP_DEFAULT_MAX_RESULTS = 100;
export const GREP_MAX_MAX_RESULTS = 5000;
export const GREP_DEFAULT_MAX_MATCHES_PER_FILE = 20;
export const GREP_DEFAULT_MAX_FILE_SIZE_BYTES = 1024 * 1024;
export const GREP_MAX_MAX_FILE_SIZE_BYTES = 64 * 1024 * 1024;

export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

export interface GrepResult {
  pattern: string;
  path: string;
  matches: GrepMatch[];
  filesScanned: number;
  truncated: boolean;
  /** Present only when something was left out: what, and how to get it. */
  notice?: string;
}

function listFiles(files: string[]): string {
  const shown = files.slice(0, 5).join(', ');
  return files.length > 5 ? `${shown} and ${files.length - 5} more` : shown;
}

/** Longest `glob` filter accepted. */
const GREP_GLOB_MAX_LENGTH = 1000;

const parameters = Type.Object({
  pattern: Type.String({
    description: 'Regular expression, e.g. "function\\\\s+main" or "TODO|FIXME".',
    minLength: 1,
    maxLength: GREP_PATTERN_MAX_LENGTH,
  }),
  path: Type.String({
    description: 'File or directory to search: absolute, ~-prefixed, or relative to the working directory.',
    minLength: 1,
  }),
  glob: Type.Optional(
    Type.String({
      description:
        'Only search files matching this glob (directory searches), e.g. "*.ts" or "src/**/*.{js,ts}".',
      minLength: 1,
      maxLength: GREP_GLOB_MAX_LENGTH,
    }),
  ),
  caseInsensitive: Type.Optional(Type.Boolean({ description: 'Ignore case (default false).' })),
});

const settings = {
  ...PATH_ACCESS_SETTINGS,
  maxResults: setting.integer({
    label: 'Maximum results',
    description: 'Most matching lines one call returns.',
    min: 1,
    max: GREP_MAX_MAX_RESULTS,
    default: GREP_DEFAULT_MAX_RESULTS,
  }),
  maxMatchesPerFile: setting.integer({
    label: 'Maximum matches per file',
    description: 'Most matching lines listed for one file.',
    min: 1,
    max: GREP_MAX_MAX_RESULTS,
    default: GREP_DEFAULT_MAX_MATCHES_PER_FILE,
  }),
  maxFileSizeBytes: setting.integer({
    label: 'Maximum file size (bytes)',
    description: 'Larger files are skipped (and named in the result notice).',
    min: 1,
    max: GREP_MAX_MAX_FILE_SIZE_BYTES,
    default: GREP_DEFAULT_MAX_FILE_SIZE_BYTES,
  }),
  includeDotfiles: setting.boolean({
    label: 'Include dotfiles',
    description: 'Also search files and directories whose names start with a dot.',
    default: false,
  }),
};

async function grep(
  args: Static<typeof parameters>,
  context: ToolContext,
  limits: SettingValues<typeof settings>,
): Promise<GrepResult> {
  const { pattern, path } = args;
  const options = grepOptionsFrom(args, limits);

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
  let refusedByPolicy = 0;
  const search = await runGrepSearch(options, {
    root: resolved.real,
    shown: path,
    rootIsFile,
    signal: context.signal,
    // The walk starts at a real directory and descends through held directories with links refused, so a
    // candidate's path is its real location (a component swapped meanwhile fails the file's open).
    allows: (candidate) => {
      const allowed = policy.admits(candidate);
      if (!allowed) refusedByPolicy += 1;
      return allowed;
    },
    // The server's own directories below the root (an operator-mode search of `/` meets /proc) are not
    // walked at all: nothing in them may be reported, so there is nothing to count either.
    skipsDirectory: (directory) => protectedPathCovering(policy.reachable, directory) !== undefined,
  });

  const anchor = getResultPathAnchor(context);
  const matches: GrepMatch[] = [];
  const tooLarge: string[] = [];
  const unsearched: string[] = [];
  let perFileCapHit = false;
  const notices: string[] = [];
  for (const outcome of search.files) {
    const file = toResultPath(outcome.file, anchor);
    if (outcome.status === 'too_large') {
      tooLarge.push(file);
      continue;
    }
    if (outcome.status === 'binary') {
      notices.push(
        `${file} is binary (a NUL byte in its first 8 KiB) and was not searched; read it with read_file view "hex".`,
      );
      continue;
    }
    if (outcome.status === 'unreadable') {
      notices.push(`${file} could not be read and was not searched.`);
      continue;
    }
    perFileCapHit ||= outcome.more;
    for (const match of outcome.matches) {
      matches.push({ file, line: match.line, text: cutLine(match.text.replace(/\r$/, '')).text });
    }
    if (outcome.unsearchedLines.length > 0) {
      unsearched.push(
        `${file} (line${outcome.unsearchedLines.length === 1 ? '' : 's'} ${outcome.unsearchedLines.slice(0, 10).join(', ')}${outcome.unsearchedLines.length > 10 ? ', …' : ''})`,
      );
    }
  }
  if (search.hitMaxResults) notices.push(grepCapNotice('maxResults', options.maxResults));
  if (perFileCapHit) notices.push(grepCapNotice('maxMatchesPerFile', options.maxMatchesPerFile));
  if (unsearched.length > 0) {
    notices.push(
      `The regular expression engine gave up (too much backtracking) on some lines, so they were not searched: ${unsearched.join('; ')}. Simplify the pattern (avoid nested quantifiers, backreferences and lookaround) or read those lines with read_file.`,
    );
  }
  if (tooLarge.length > 0) {
    notices.push(
      `Skipped ${tooLarge.length} file${tooLarge.length === 1 ? '' : 's'} larger than maxFileSizeBytes (${options.maxFileSizeBytes} bytes): ${listFiles(tooLarge)}.`,
    );
  }
  if (refusedByPolicy > 0) notices.push(policyOmissionNotice(refusedByPolicy, 'files'));
  const result: GrepResult = {
    pattern,
    path,
    matches,
    filesScanned: search.filesScanned,
    truncated: search.hitMaxResults || perFileCapHit || unsearched.length > 0,
  };
  if (notices.length > 0) result.notice = notices.join(' ');
  return result;
}

export const grepTool = defineTool({
  name: 'grep',
  description:
    'Searches files for lines matching a regular expression (JavaScript syntax). path may be a file or a directory; in a directory, glob filters the files ("*.ts" matches at any depth). Returns {file, line, text} per matching line; file paths are relative to the working directory and can be passed to read_file.',
  parameters,
  traits: readOnlyLocalTraits('search_matches'),
  title: 'Grep',
  summary: 'Lets the model search file contents with regular expressions.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings,
  execute: grep,
});

registerTool(grepTool);
