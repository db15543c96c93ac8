/**
 * The new-chat form's working-directory chooser: a select of the user's workspaces and a folder picker
 * that walks into the subdirectories the server lists (`GET /api/workspaces/directories`) and back up a
 * trail that ends at the workspace root, so the chosen folder is always inside a workspace the user has.
 * Plain buttons and a labelled select: every step works from the keyboard, with the app's focus ring.
 * A folder the server refuses to list stays unchosen and its message is shown.
 */
import type { ApiClient, WorkspaceList, WorkspaceSummary } from './api-client.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import {
  childFolder,
  defaultWorkspace,
  folderTrail,
  parentFolder,
  workspaceLabel,
} from './workspace-folders.ts';

export interface WorkspacePicker {
  element: HTMLElement;
  /** The chosen folder, or undefined when there is no workspace to choose from. */
  folder(): string | undefined;
}

export function createWorkspacePicker(api: ApiClient, list: WorkspaceList): WorkspacePicker {
  const ids = {
    workspace: uniqueId('workspace'),
    workspaceHint: uniqueId('workspace-hint'),
    folderLabel: uniqueId('folder-label'),
  };
  const initial = defaultWorkspace(list.workspaces);
  let workspace: WorkspaceSummary | undefined = initial;
  let folder: string | undefined = initial?.path;
  let request = 0;

  const select = workspaceSelectOf(list, ids);
  const workspaceHint = h('p', { class: 'field-hint', id: ids.workspaceHint });
  const trail = h('ol', { class: 'folder-trail' });
  const upButton = h('button', { type: 'button', class: 'button-secondary' }, 'Up one folder');
  const subfolders = h('ul', { class: 'folder-list' });
  const folderStatus = h('p', { class: 'field-hint', role: 'status' });

  const renderTrail = () => {
    if (!workspace || folder === undefined) return;
    const steps = folderTrail(workspace, folder);
    replaceChildren(
      trail,
      trailItems(steps, (path) => void open(path, 'trail')),
    );
    const parent = parentFolder(workspace, folder);
    showUpButton(upButton, parent !== undefined);
  };

  /** Lists `target` and, once the server has, makes it the chosen folder; stale answers are dropped. */
  const open = async (target: string, focusAfter: 'list' | 'trail' | 'none') => {
    request += 1;
    const mine = request;
    folderStatus.textContent = 'Loading folders…';
    folderStatus.classList.remove('error-text');
    try {
      const listing = await api.listDirectories(target);
      if (mine !== request) return;
      folder = target;
      renderTrail();
      subfolders.setAttribute('aria-label', `Folders in ${folderTrail(workspace!, target).at(-1)!.name}`);
      replaceChildren(
        subfolders,
        subfolderItems(listing.directories, (name) => void open(childFolder(target, name), 'list')),
      );
      folderStatus.textContent = subfolderStatus(listing.directories.length);
      focusAfterOpen(focusAfter, { subfolders, upButton, select });
    } catch (error) {
      if (mine !== request) return;
      folderStatus.textContent = `Could not open this folder: ${(error as Error).message}`;
      folderStatus.classList.add('error-text');
    }
  };

  upButton.addEventListener('click', () => {
    if (!workspace || folder === undefined) return;
    const parent = parentFolder(workspace, folder);
    if (parent !== undefined) void open(parent, 'trail');
  });
  select.addEventListener('change', () => {
    workspace = list.workspaces.find((candidate) => candidate.path === select.value);
    if (!workspace) return;
    folder = workspace.path;
    workspaceHint.textContent = workspaceHintText(workspace);
    renderTrail();
    void open(workspace.path, 'none');
  });

  if (!initial) return noWorkspacePicker();
  select.value = initial.path;
  workspaceHint.textContent = workspaceHintText(workspace);
  renderTrail();
  void open(initial.path, 'none');

  const element = pickerElement(ids, { select, workspaceHint, trail, upButton, subfolders, folderStatus });
  return { element, folder: () => folder };
}

/** The picker of a user with no workspace listed: nothing to choose, the personal workspace it is. */
function noWorkspacePicker(): WorkspacePicker {
  return {
    element: h(
      'fieldset',
      { class: 'workspace-picker' },
      h('legend', {}, 'Working directory'),
      h(
        'p',
        { class: 'field-hint' },
        'You have no workspace listed; the chat starts in your personal workspace.',
      ),
    ),
    folder: () => undefined,
  };
}

function workspaceHintText(workspace: WorkspaceSummary | undefined): string {
  return workspace?.access === 'read-only'
    ? 'Read-only: tools can read files here but not change them.'
    : 'Tools can read and change files in the folder you choose below.';
}

/** The trail from the workspace root to the chosen folder: every step but the last opens its folder. */
function trailItems(steps: readonly { name: string; path: string }[], openStep: (path: string) => void) {
  return steps.map((step, index) =>
    h(
      'li',
      {},
      index === steps.length - 1
        ? h('span', { class: 'folder-current', 'aria-current': 'location' }, step.name)
        : h(
            'button',
            { type: 'button', class: 'folder-step', onclick: () => openStep(step.path) },
            step.name,
          ),
    ),
  );
}

/** One button per folder inside the chosen one, each opening it. */
function subfolderItems(names: readonly string[], openName: (name: string) => void) {
  return names.map((name) =>
    h(
      'li',
      {},
      h(
        'button',
        {
          type: 'button',
          class: 'folder-button',
          'aria-label': `Open folder ${name}`,
          onclick: () => openName(name),
        },
        h('span', { class: 'folder-icon', 'aria-hidden': 'true' }, '▸'),
        name,
      ),
    ),
  );
}

function subfolderStatus(count: number): string {
  return count === 0
    ? 'No folders inside. The chat will work in this folder.'
    : `${count} folder${count === 1 ? '' : 's'} inside. The chat works in the folder shown above.`;
}

/** Up is disabled at the workspace root, and its label says why. */
function showUpButton(upButton: HTMLButtonElement, canGoUp: boolean): void {
  upButton.disabled = !canGoUp;
  upButton.setAttribute('aria-label', canGoUp ? 'Up one folder' : 'Up one folder (at the workspace root)');
}

/**
 * Where focus goes once a folder opened: from the list into the first subfolder (else Up), from the
 * trail or Up to Up (else, at the root, the workspace choice), nowhere after a workspace change.
 */
function focusAfterOpen(
  focusAfter: 'list' | 'trail' | 'none',
  parts: { subfolders: HTMLElement; upButton: HTMLButtonElement; select: HTMLSelectElement },
): void {
  const { subfolders, upButton, select } = parts;
  if (focusAfter === 'list') {
    const first = subfolders.querySelector('button');
    (first ?? upButton).focus();
  } else if (focusAfter === 'trail') {
    if (upButton.disabled) select.focus();
    else upButton.focus();
  }
}

/** The picker's fieldset: the workspace choice with its hint, then the folder trail, Up and the subfolders. */
function pickerElement(
  ids: { workspace: string; folderLabel: string },
  parts: Record<
    'select' | 'workspaceHint' | 'trail' | 'upButton' | 'subfolders' | 'folderStatus',
    HTMLElement
  >,
): HTMLElement {
  return h(
    'fieldset',
    { class: 'workspace-picker' },
    h('legend', {}, 'Working directory'),
    h(
      'div',
      { class: 'field' },
      h('label', { for: ids.workspace }, 'Workspace'),
      parts.select,
      parts.workspaceHint,
    ),
    h(
      'div',
      { class: 'field' },
      h('span', { class: 'field-label', id: ids.folderLabel }, 'Folder'),
      h('nav', { class: 'folder-nav', 'aria-labelledby': ids.folderLabel }, parts.trail),
      h('div', { class: 'folder-actions' }, parts.upButton),
      parts.subfolders,
      parts.folderStatus,
    ),
  );
}

/** The workspace choice: one option per listed workspace, labelled with its kind and access. */
function workspaceSelectOf(
  list: WorkspaceList,
  ids: { workspace: string; workspaceHint: string },
): HTMLSelectElement {
  return h(
    'select',
    { id: ids.workspace, name: 'workspace', 'aria-describedby': ids.workspaceHint },
    list.workspaces.map((candidate) => h('option', { value: candidate.path }, workspaceLabel(candidate))),
  );
}
