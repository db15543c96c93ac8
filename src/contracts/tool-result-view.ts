/**
 * The renderings the web app has for a tool's result, and the result shape each of the structured ones
 * reads. A tool declares its view as a trait and returns that view's shape (its result type is the one
 * named here), the settings API reports the view and the web app switches on it, checking the shape at
 * run time: a result that does not fit is shown by the generic view. The list sits at the bottom of the
 * layer order (docs/architecture.md), as a constant table and types.
 */

/** How the web app renders a tool's result; `json` is the generic view every result falls back to. */
export const TOOL_RESULT_VIEWS = [
  'json',
  'file_content',
  'search_matches',
  'command_output',
  'images',
  'directory_listing',
  'path_list',
  'file_edit',
] as const;
export type ToolResultView = (typeof TOOL_RESULT_VIEWS)[number];

export type DirectoryEntryType = 'file' | 'directory' | 'symlink' | 'other';

/** `directory_listing`: one directory's entries, shown as a table. */
export interface DirectoryListingResult {
  path: string;
  entries: { name: string; type: DirectoryEntryType }[];
  /** Present only when entries were left out by the access policy: how many. */
  notice?: string;
}

/** `path_list`: paths that matched a pattern, shown as a list. */
export interface PathListResult {
  pattern: string;
  /** The directory the pattern was evaluated in, as the call named it. */
  cwd: string;
  matches: string[];
  truncated: boolean;
  /** Present only when something was left out: what and how to see it. */
  notice?: string;
}

/**
 * `file_edit`: a replacement of `oldString` by `newString` in one file, shown as the line diff of the
 * call's arguments (`FileEditArguments`, the same diff its approval showed) with what the result says.
 */
export interface FileEditResult {
  path: string;
  replacements: number;
  sha256: string;
  /** 1-based line of the first replacement. */
  firstChangedLine: number;
}

/** The arguments a `file_edit` view reads its diff from. */
export interface FileEditArguments {
  path: string;
  oldString: string;
  newString: string;
  replaceAll?: boolean;
}
