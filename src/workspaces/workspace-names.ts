/**
 * What a workspace is called where people see it (the files panel, the chat header, the new-chat
 * form): "My workspace" for the personal one, a grant by its folder's name. The server names them, so
 * every client says the same and none has to parse a path. Two grants whose folders share a name are
 * told apart by the folder above (`site (alice)`, `site (bob)`); when that is shared too, by their
 * whole path.
 */
import { basename, dirname } from 'node:path';
import type { Workspace } from '../tools/access/reachable-set.ts';

export const PERSONAL_WORKSPACE_NAME = 'My workspace';

function folderName(path: string): string {
  return basename(path) || path;
}

function counts(names: readonly string[]): Map<string, number> {
  const seen = new Map<string, number>();
  for (const name of names) seen.set(name, (seen.get(name) ?? 0) + 1);
  return seen;
}

/** The display name of each workspace, in the order given. */
export function workspaceNames(workspaces: readonly Pick<Workspace, 'path' | 'kind'>[]): string[] {
  const granted = workspaces.filter((workspace) => workspace.kind === 'granted');
  const plain = counts(granted.map((workspace) => folderName(workspace.path)));
  const withParent = (path: string) => `${folderName(path)} (${folderName(dirname(path))})`;
  const qualified = counts(
    granted.filter((workspace) => plain.get(folderName(workspace.path))! > 1).map((w) => withParent(w.path)),
  );
  return workspaces.map((workspace) => {
    if (workspace.kind === 'personal') return PERSONAL_WORKSPACE_NAME;
    const name = folderName(workspace.path);
    if (plain.get(name) === 1) return name;
    const longer = withParent(workspace.path);
    return qualified.get(longer) === 1 ? longer : workspace.path;
  });
}
