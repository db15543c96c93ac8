/**
 * Where the files panel is, as data free of the DOM: the workspace holding a chat's working directory
 * (the deepest one), the panel's root (the working directory, relative to that workspace), and moves in
 * and out that never leave the root — the panel shows what the chat's tools reach — and the place as
 * people read it, by the workspace's name rather than the server's path.
 */
import type { WorkspaceSummary } from './api-client.ts';
import type { MessageAttachment } from './message-attachments.ts';

export interface FilesLocation {
  workspace: WorkspaceSummary;
  /** The chat's working directory relative to the workspace root (`''` = the root). */
  root: string;
}

function inside(path: string, directory: string): boolean {
  return path === directory || path.startsWith(directory.endsWith('/') ? directory : `${directory}/`);
}

/** The deepest workspace holding `workingDirectory`, or undefined. */
export function locateFiles(
  workspaces: readonly WorkspaceSummary[],
  workingDirectory: string,
): FilesLocation | undefined {
  let best: WorkspaceSummary | undefined;
  for (const workspace of workspaces) {
    if (inside(workingDirectory, workspace.path) && (!best || workspace.path.length > best.path.length)) {
      best = workspace;
    }
  }
  if (!best) return undefined;
  const rest = workingDirectory.slice(best.path.length).replace(/^\/+/, '');
  return { workspace: best, root: rest };
}

/** How people see a place: the workspace's name, then the folders below its root (`My workspace / app/src`). */
export function placeName(location: FilesLocation, directory = location.root): string {
  return directory === '' ? location.workspace.name : `${location.workspace.name} / ${directory}`;
}

/** The attachment of the file at `path` (relative to the workspace root), named `name`. */
export function attachmentAt(location: FilesLocation, path: string, name: string): MessageAttachment {
  const slash = path.lastIndexOf('/');
  return {
    path: location.workspace.path.replace(/\/+$/, '') + (path === '' ? '' : `/${path}`),
    name,
    place: placeName(location, slash < 0 ? '' : path.slice(0, slash)),
  };
}

/** `directory` (relative) joined with one entry name the server listed. */
export function childPath(directory: string, name: string): string {
  return directory === '' ? name : `${directory}/${name}`;
}

/** One level up from `directory`, or undefined at `root`. */
export function parentPath(directory: string, root: string): string | undefined {
  if (directory === root) return undefined;
  const slash = directory.lastIndexOf('/');
  const parent = slash < 0 ? '' : directory.slice(0, slash);
  return parent.length < root.length ? root : parent;
}

/** A size for people: bytes, KB, MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
