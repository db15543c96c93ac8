/**
 * list_directory: the entries of one directory as `{name, type}`, sorted by name. The directory is
 * listed through its verified descriptor (`listVerifiedDirectory`): a symlink whose target is out of
 * reach, or an entry the settings deny, is left out and counted in a notice.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { DirectoryEntryType, DirectoryListingResult } from '../../contracts/tool-result-view.ts';
import { type ResolvedPath, resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError } from '../errors.ts';
import { describeSystemError } from '../fs/describe-system-error.ts';
import { listVerifiedDirectory } from '../fs/list-verified-directory.ts';
import { statVerified } from '../fs/open-verified-file.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { policyOmissionNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

/** The `directory_listing` result view's shape, read by the web app's table. */
export type ListDirectoryResult = DirectoryListingResult;

function entryType(entry: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): DirectoryEntryType {
  if (entry.isFile()) return 'file';
  if (entry.isDirectory()) return 'directory';
  if (entry.isSymbolicLink()) return 'symlink';
  return 'other';
}

function isNonDirectory(resolved: ResolvedPath): boolean {
  try {
    return !statVerified(resolved).isDirectory();
  } catch {
    return false;
  }
}

const parameters = Type.Object({
  path: Type.String({
    description: 'Directory path: absolute, ~-prefixed, or relative to the working directory ("." for it).',
    minLength: 1,
  }),
});

async function listDirectory(
  { path }: Static<typeof parameters>,
  context: ToolContext,
): Promise<ListDirectoryResult> {
  const resolved = await resolveAndValidatePath(path, context);
  try {
    const listing = await listVerifiedDirectory(resolved, context);
    const entries = listing.entries
      .map((entry) => ({ name: entry.name, type: entryType(entry) }))
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
    const result: ListDirectoryResult = { path, entries };
    if (listing.refused > 0) result.notice = policyOmissionNotice(listing.refused, 'entries');
    return result;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // The path itself names a file: the argument is wrong, not missing (ENOTDIR also means a middle
    // component is a file, which is a not_found and keeps describeSystemError's wording).
    if (code === 'ENOTDIR' && isNonDirectory(resolved)) {
      throw new ToolArgumentError(
        `Cannot list ${JSON.stringify(path)}: it is a file, not a directory. Read a file with read_file.`,
      );
    }
    throw describeSystemError(error, 'list', path);
  }
}

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  description:
    'Lists the entries of a directory as {name, type} sorted by name; type is file, directory, symlink or other.',
  parameters,
  traits: readOnlyLocalTraits('directory_listing'),
  title: 'List directory',
  summary: 'Lets the model list directories.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings: { ...PATH_ACCESS_SETTINGS },
  execute: listDirectory,
});

registerTool(listDirectoryTool);
