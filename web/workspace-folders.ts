/**
 * The new-chat form's workspace choice as data, free of the DOM so it is unit-tested: how a workspace is
 * named in the select (by the name the server gives it, never its path), the trail of folders from a workspace's root to the chosen folder, and the
 * `POST /api/chats` body built from the choice. A folder is always inside the chosen workspace: the
 * picker only walks from its root into subdirectory names the server listed, and back up to the root.
 */
import type { CreateChatBody, WorkspaceSummary } from './api-client.ts';

/** One step of the trail: a folder's name and absolute path. */
export interface FolderStep {
  name: string;
  path: string;
}

/** The select's text for a workspace: its name (the server's), whether granted, its access. */
export function workspaceLabel(workspace: WorkspaceSummary): string {
  const access = workspace.access === 'read-only' ? 'read-only' : 'read-write';
  return workspace.kind === 'personal'
    ? `${workspace.name} (${access})`
    : `${workspace.name} (granted, ${access})`;
}

/** The workspace a new chat starts in: the personal one, else the first listed. */
export function defaultWorkspace(workspaces: readonly WorkspaceSummary[]): WorkspaceSummary | undefined {
  return workspaces.find((workspace) => workspace.kind === 'personal') ?? workspaces[0];
}

/** `folder` joined with one subdirectory name the server listed. */
export function childFolder(folder: string, name: string): string {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) {
    throw new Error(`"${name}" is not a folder name.`);
  }
  return folder.endsWith('/') ? `${folder}${name}` : `${folder}/${name}`;
}

function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return candidate.startsWith(prefix);
}

/**
 * The folders from the workspace root (first, named as in the select) down to `folder`. A folder outside
 * the workspace yields only the root: the picker never shows a trail it cannot walk.
 */
export function folderTrail(workspace: WorkspaceSummary, folder: string): FolderStep[] {
  const trail: FolderStep[] = [{ name: workspace.name, path: workspace.path }];
  if (folder === workspace.path || !isInside(workspace.path, folder)) return trail;
  const relative = folder.slice(workspace.path.length).split('/').filter(Boolean);
  let current = workspace.path;
  for (const name of relative) {
    current = childFolder(current, name);
    trail.push({ name, path: current });
  }
  return trail;
}

/** The folder one level up, or undefined at the workspace root (the picker never leaves it). */
export function parentFolder(workspace: WorkspaceSummary, folder: string): string | undefined {
  const trail = folderTrail(workspace, folder);
  return trail.length > 1 ? trail.at(-2)?.path : undefined;
}

export interface NewChatChoice {
  provider: string;
  model: string;
  title: string;
  /** The chosen folder, or undefined when the server's workspaces could not be listed. */
  folder: string | undefined;
  /** The "all my workspaces" box; counts only when the server allows unrestricted chats. */
  unrestricted: boolean;
  allowUnrestricted: boolean;
  /** The chat's system prompt as typed; blank = none. */
  systemPrompt?: string;
}

/** The `POST /api/chats` body: empty fields left out, `unrestricted` only when allowed and chosen. */
export function createChatBodyFrom(choice: NewChatChoice): CreateChatBody {
  const body: CreateChatBody = { provider: choice.provider, model: choice.model.trim() };
  const title = choice.title.trim();
  if (title !== '') body.title = title;
  if (choice.folder !== undefined) body.workingDirectory = choice.folder;
  if (choice.allowUnrestricted && choice.unrestricted) body.unrestricted = true;
  // Kept as typed (inner whitespace can matter to a model); only an all-blank prompt is left out.
  if (choice.systemPrompt !== undefined && choice.systemPrompt.trim() !== '')
    body.systemPrompt = choice.systemPrompt;
  return body;
}
