/**
 * The files panel beside an open chat: the chat's working directory, folders first; walk into folders
 * and back (never above the working directory, which is what the chat's tools reach); upload by drag
 * and drop or with a file input; download a file, fetched with the bearer token and saved through a
 * `blob:` link (the token never appears in a URL). Errors are shown in the panel. Every name is a text
 * node, so no file name can become markup.
 */
import {
  type ApiClient,
  ApiError,
  type WorkspaceFileEntry,
  type WorkspaceFileListing,
} from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { childPath, type FilesLocation, formatSize, locateFiles, parentPath } from './files-location.ts';

export async function mountFilesPanel(panel: HTMLElement, api: ApiClient, chatId: string): Promise<void> {
  const { where, status, error, list, upButton, refreshButton, input, inputLabel } = buildPanel(panel);

  let location: FilesLocation | undefined;
  let directory = '';
  const showError = (message: string) => {
    error.textContent = message;
  };

  const render = async () => {
    if (!location) return;
    showError('');
    status.textContent = 'Loading…';
    const workspaceId = location.workspace.id;
    try {
      const listing = await api.listWorkspaceFiles(workspaceId, directory);
      directory = listing.path;
      where.textContent = `${location.workspace.path}${directory === '' ? '' : `/${directory}`}`;
      upButton.disabled = parentPath(directory, location.root) === undefined;
      status.textContent = listingNotes(listing);
      if (listing.entries.length === 0) {
        replaceChildren(list, h('li', { class: 'list-empty' }, 'This folder is empty.'));
        return;
      }
      replaceChildren(
        list,
        listing.entries.map((entry) => {
          const path = childPath(directory, entry.name);
          return fileEntryItem(entry, {
            open: () => {
              directory = path;
              void render();
            },
            download: () => void download(api, workspaceId, path, entry.name, showError),
          });
        }),
      );
    } catch (caught) {
      status.textContent = '';
      showError(`Could not list the folder: ${(caught as Error).message}`);
    }
  };

  const upload = async (files: readonly File[]) => {
    if (!location || files.length === 0) return;
    showError('');
    const target = { api, workspaceId: location.workspace.id, directory: () => directory };
    if (await uploadFiles(target, files, { status, showError })) await render();
  };

  upButton.addEventListener('click', () => {
    const parent = location ? parentPath(directory, location.root) : undefined;
    if (parent === undefined) return;
    directory = parent;
    void render();
  });
  refreshButton.addEventListener('click', () => void render());
  input.addEventListener('change', () => {
    const chosen = [...(input.files ?? [])];
    input.value = '';
    void upload(chosen);
  });
  acceptDroppedFiles(panel, (files) => void upload(files));

  try {
    location = await chatFilesLocation(api, chatId);
    if (!location) {
      showError('No workspace holds this chat’s working directory.');
      return;
    }
    if (location.workspace.access === 'read-only') {
      input.disabled = true;
      inputLabel.setAttribute('aria-disabled', 'true');
    }
    directory = location.root;
    await render();
  } catch (caught) {
    showError(`Could not load the files: ${(caught as Error).message}`);
  }
}

/** One entry of the listing: a folder opens, a file or link downloads, anything else is only named. */
function fileEntryItem(
  entry: WorkspaceFileEntry,
  actions: { open: () => void; download: () => void },
): HTMLElement {
  if (entry.type === 'directory') {
    return h(
      'li',
      { class: 'files-entry' },
      h(
        'button',
        {
          type: 'button',
          class: 'files-folder',
          'aria-label': `Open folder ${entry.name}`,
          onclick: actions.open,
        },
        `📁 ${entry.name}`,
      ),
    );
  }
  const downloadable = entry.type === 'file' || entry.type === 'symlink';
  return h(
    'li',
    { class: 'files-entry' },
    h('span', { class: 'files-name' }, entry.name),
    h('span', { class: 'files-size' }, entry.size === undefined ? '' : formatSize(entry.size)),
    downloadable &&
      h(
        'button',
        {
          type: 'button',
          class: 'button-secondary files-download',
          'aria-label': `Download ${entry.name}`,
          onclick: actions.download,
        },
        'Download',
      ),
  );
}

/** The folder the panel opens at: the chat's working directory, else the first workspace's root. */
async function chatFilesLocation(api: ApiClient, chatId: string): Promise<FilesLocation | undefined> {
  const [chat, { workspaces }] = await Promise.all([api.getChat(chatId), api.listWorkspaces()]);
  const location = chat.workingDirectory ? locateFiles(workspaces, chat.workingDirectory) : undefined;
  return location ?? (workspaces[0] && { workspace: workspaces[0], root: '' });
}

/** Downloads one file of the workspace; a failure is shown in the panel. */
async function download(
  api: ApiClient,
  workspaceId: string,
  path: string,
  name: string,
  showError: (message: string) => void,
): Promise<void> {
  showError('');
  try {
    saveBlob(await api.downloadWorkspaceFile(workspaceId, path), name);
  } catch (caught) {
    showError(`Could not download ${name}: ${(caught as Error).message}`);
  }
}

/** Saves `blob` as `name` through a `blob:` link, so the download needs no token in a URL. */
function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, class: 'visually-hidden' });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Uploads `files` one by one into the folder; a name that exists is replaced only when the user says
 * so. The first failure stops the rest and is shown. True when the listing should be shown again.
 */
async function uploadFiles(
  target: { api: ApiClient; workspaceId: string; directory: () => string },
  files: readonly File[],
  view: { status: HTMLElement; showError: (message: string) => void },
): Promise<boolean> {
  const { api, workspaceId } = target;
  for (const file of files) {
    view.status.textContent = `Uploading ${file.name}…`;
    try {
      await api.uploadWorkspaceFile(workspaceId, target.directory(), file, false);
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === 'file_exists') {
        const replace = await confirmWithDialog({
          title: 'Replace file?',
          body: `${file.name} already exists in this folder. Replace it?`,
          confirmLabel: 'Replace',
          danger: true,
        });
        if (!replace) continue;
        try {
          await api.uploadWorkspaceFile(workspaceId, target.directory(), file, true);
        } catch (again) {
          view.showError(`Could not upload ${file.name}: ${(again as Error).message}`);
          return false;
        }
      } else {
        view.showError(`Could not upload ${file.name}: ${(caught as Error).message}`);
        view.status.textContent = '';
        return false;
      }
    }
  }
  return true;
}

/** The panel's heading, toolbar and regions, mounted in `panel`; the parts the panel updates. */
function buildPanel(panel: HTMLElement) {
  const headingId = uniqueId('files-heading');
  const inputId = uniqueId('files-input');
  const heading = h('h2', { id: headingId }, 'Files');
  const where = h('p', { class: 'files-where' });
  const status = h('p', { class: 'files-status', role: 'status' });
  const error = h('p', { class: 'error-text files-error', role: 'alert' });
  const list = h('ul', { class: 'files-list', 'aria-label': 'Files in this folder' });
  const upButton = h(
    'button',
    { type: 'button', class: 'button-secondary', 'aria-label': 'Up one folder' },
    'Up',
  );
  const refreshButton = h('button', { type: 'button', class: 'button-secondary' }, 'Refresh');
  const input = h('input', { type: 'file', id: inputId, multiple: true, class: 'visually-hidden' });
  const inputLabel = h('label', { for: inputId, class: 'button-secondary files-upload' }, 'Upload files');
  panel.setAttribute('aria-labelledby', headingId);
  replaceChildren(
    panel,
    heading,
    where,
    h('div', { class: 'files-toolbar' }, upButton, refreshButton, input, inputLabel),
    h('p', { class: 'files-hint' }, 'Drop files here to upload them into this folder.'),
    error,
    status,
    list,
  );
  return { where, status, error, list, upButton, refreshButton, input, inputLabel };
}

/** What the listing leaves out, in a sentence or two; '' when it shows everything. */
function listingNotes(listing: WorkspaceFileListing): string {
  return [
    listing.omitted > 0 ? `${listing.omitted} entries leading outside the workspace are not shown.` : '',
    listing.truncated ? `Only the first ${listing.entries.length} entries are shown.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** Files dropped on `panel` are uploaded; the panel is marked as a drop target while one is dragged over. */
function acceptDroppedFiles(panel: HTMLElement, upload: (files: File[]) => void): void {
  panel.addEventListener('dragover', (event) => {
    event.preventDefault();
    panel.classList.add('files-drop-target');
  });
  panel.addEventListener('dragleave', () => panel.classList.remove('files-drop-target'));
  panel.addEventListener('drop', (event) => {
    event.preventDefault();
    panel.classList.remove('files-drop-target');
    upload([...(event.dataTransfer?.files ?? [])]);
  });
}
