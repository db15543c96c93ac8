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

  const select = h(
    'select',
    { id: ids.workspace, name: 'workspace', 'aria-describedby': ids.workspaceHint },
    list.workspaces.map((candidate) => h('option', { value: candidate.path }, workspaceLabel(candidate))),
  );
  const workspaceHint = h('p', { class: 'field-hint', id: ids.workspaceHint });
  const trail = h('ol', { class: 'folder-trail' });
  const upButton = h('button', { type: 'button', class: 'button-secondary' }, 'Up one folder');
  const subfolders = h('ul', { class: 'folder-list' });
  const folderStatus = h('p', { class: 'field-hint', role: 'status' });

  const renderWorkspaceHint = () => {
    workspaceHint.textContent =
      workspace?.access === 'read-only'
        ? 'Read-only: tools can read files here but not change them.'
        : 'Tools can read and change files in the folder you choose below.';
  };

  const renderTrail = () => {
    if (!workspace || folder === undefined) return;
    const steps = folderTrail(workspace, folder);
    replaceChildren(
      trail,
      steps.map((step, index) =>
        h(
          'li',
          {},
          index === steps.length - 1
            ? h('span', { class: 'folder-current', 'aria-current': 'location' }, step.name)
            : h(
                'button',
                { type: 'button', class: 'folder-step', onclick: () => void open(step.path, 'trail') },
                step.name,
              ),
        ),
      ),
    );
    const parent = parentFolder(workspace, folder);
    upButton.disabled = parent === undefined;
    upButton.setAttribute(
      'aria-label',
      parent === undefined ? 'Up one folder (at the workspace root)' : 'Up one folder',
    );
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
        listing.directories.map((name) =>
          h(
            'li',
            {},
            h(
              'button',
              {
                type: 'button',
                class: 'folder-button',
                'aria-label': `Open folder ${name}`,
                onclick: () => void open(childFolder(target, name), 'list'),
              },
              h('span', { class: 'folder-icon', 'aria-hidden': 'true' }, '▸'),
              name,
            ),
          ),
        ),
      );
      folderStatus.textContent =
        listing.directories.length === 0
          ? 'No folders inside. The chat will work in this folder.'
          : `${listing.directories.length} folder${listing.directories.length === 1 ? '' : 's'} inside. The chat works in the folder shown above.`;
      if (focusAfter === 'list') {
        const first = subfolders.querySelector('button');
        (first ?? upButton).focus();
      } else if (focusAfter === 'trail') {
        if (upButton.disabled) select.focus();
        else upButton.focus();
      }
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
    renderWorkspaceHint();
    renderTrail();
    void open(workspace.path, 'none');
  });

  if (!initial) {
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
  select.value = initial.path;
  renderWorkspaceHint();
  renderTrail();
  void open(initial.path, 'none');

  const element = h(
    'fieldset',
    { class: 'workspace-picker' },
    h('legend', {}, 'Working directory'),
    h('div', { class: 'field' }, h('label', { for: ids.workspace }, 'Workspace'), select, workspaceHint),
    h(
      'div',
      { class: 'field' },
      h('span', { class: 'field-label', id: ids.folderLabel }, 'Folder'),
      h('nav', { class: 'folder-nav', 'aria-labelledby': ids.folderLabel }, trail),
      h('div', { class: 'folder-actions' }, upButton),
      subfolders,
      folderStatus,
    ),
  );
  return { element, folder: () => folder };
}
