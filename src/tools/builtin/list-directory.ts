/**
 * list_directory: the entries of one directory as `{name, type}`, sorted by name. The directory is
 * listed by the call's file operations through its verified descriptor: a symlink whose target is out of
 * reach, or an entry the settings deny, is left out and counted in a notice.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { DirectoryListingResult } from '../../contracts/tool-result-view.ts';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { defineTool } from '../define-tool.ts';
import { PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { policyOmissionNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

/** The `directory_listing` result view's shape, read by the web app's table. */
export type ListDirectoryResult = DirectoryListingResult;

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
  const listing = await fileOperationsFor(context).listDirectory(path);
  // The second wall: wherever the file work ran, the directory it listed is decided here again.
  (await getAccessPolicy(context)).require(listing.real, 'read', path, listing.real);
  const result: ListDirectoryResult = { path, entries: listing.entries };
  if (listing.refused > 0) result.notice = policyOmissionNotice(listing.refused, 'entries');
  return result;
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
