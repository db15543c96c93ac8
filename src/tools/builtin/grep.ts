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
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { defineTool } from '../define-tool.ts';
import { GREP_PATTERN_MAX_LENGTH } from '../fs/grep/compile-grep-pattern.ts';
import { grepOptionsFrom } from '../fs/grep/grep-options.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { getResultPathAnchor, toResultPath } from '../fs/result-paths.ts';
import { grepCapNotice, policyOmissionNotice } from '../output/cut-notices.ts';
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

/** The first files by name, and how many more of `count` there are. */
function listFiles(files: string[], count: number): string {
  const shown = files.slice(0, 5).join(', ');
  return count > 5 ? `${shown} and ${count - 5} more` : shown;
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

  const search = await fileOperationsFor(context).grepFiles({ path, options });
  // The second wall: wherever the file work ran, every location it names is decided here again, by the
  // server's own policy and lexically (nothing is opened here).
  const policy = await getAccessPolicy(context);
  policy.require(search.real, 'read', path, search.real);
  for (const file of [...search.files.map((outcome) => outcome.file), ...search.tooLarge.files]) {
    policy.require(file, 'read', file, file);
  }
  const refusedByPolicy = search.refused;

  const anchor = getResultPathAnchor(context);
  const matches: GrepMatch[] = [];
  const unsearched: string[] = [];
  let perFileCapHit = false;
  const notices: string[] = [];
  for (const outcome of search.files) {
    const file = toResultPath(outcome.file, anchor);
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
      matches.push({ file, line: match.line, text: match.text });
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
  if (search.tooLarge.count > 0) {
    const { files, count } = search.tooLarge;
    notices.push(
      `Skipped ${count} file${count === 1 ? '' : 's'} larger than maxFileSizeBytes (${options.maxFileSizeBytes} bytes): ${listFiles(
        files.map((file) => toResultPath(file, anchor)),
        count,
      )}.`,
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
