/**
 * The files panel beside an open chat: the chat's working directory, folders first; walk into folders
 * and back (never above the working directory, which is what the chat's tools reach); upload by drag
 * and drop or with a file input; download a file, fetched with the bearer token and saved through a
 * `blob:` link (the token never appears in a URL). Errors are shown in the panel. Every name is a text
 * node, so no file name can become markup.
 */
import { type ApiClient, ApiError } from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { childPath, type FilesLocation, formatSize, locateFiles, parentPath } from './files-location.ts';

export async function mountFilesPanel(panel: HTMLElement, api: ApiClient, chatId: string): Promise<void> {
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

  let location: FilesLocation | undefined;
  let directory = '';
  const showError = (message: string) => {
    error.textContent = message;
  };

  const render = async () => {
    if (!location) return;
    showError('');
    status.textContent = 'Loading…';
    try {
      const listing = await api.listWorkspaceFiles(location.workspace.id, directory);
      directory = listing.path;
      where.textContent = `${location.workspace.path}${directory === '' ? '' : `/${directory}`}`;
      upButton.disabled = parentPath(directory, location.root) === undefined;
      const notes = [
        listing.omitted > 0 ? `${listing.omitted} entries leading outside the workspace are not shown.` : '',
        listing.truncated ? `Only the first ${listing.entries.length} entries are shown.` : '',
      ].filter(Boolean);
      status.textContent = notes.join(' ');
      if (listing.entries.length === 0) {
        replaceChildren(list, h('li', { class: 'list-empty' }, 'This folder is empty.'));
        return;
      }
      replaceChildren(
        list,
        listing.entries.map((entry) => {
          const path = childPath(directory, entry.name);
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
                  onclick: () => {
                    directory = path;
                    void render();
                  },
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
                  onclick: () => void download(path, entry.name),
                },
                'Download',
              ),
          );
        }),
      );
    } catch (caught) {
      status.textContent = '';
      showError(`Could not list the folder: ${(caught as Error).message}`);
    }
  };

  const download = async (path: string, name: string) => {
    if (!location) return;
    showError('');
    try {
      const blob = await api.downloadWorkspaceFile(location.workspace.id, path);
      const url = URL.createObjectURL(blob);
      const link = h('a', { href: url, download: name, class: 'visually-hidden' });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (caught) {
      showError(`Could not download ${name}: ${(caught as Error).message}`);
    }
  };

  const upload = async (files: readonly File[]) => {
    if (!location || files.length === 0) return;
    showError('');
    for (const file of files) {
      status.textContent = `Uploading ${file.name}…`;
      try {
        await api.uploadWorkspaceFile(location.workspace.id, directory, file, false);
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
            await api.uploadWorkspaceFile(location.workspace.id, directory, file, true);
          } catch (again) {
            showError(`Could not upload ${file.name}: ${(again as Error).message}`);
            return;
          }
        } else {
          showError(`Could not upload ${file.name}: ${(caught as Error).message}`);
          status.textContent = '';
          return;
        }
      }
    }
    await render();
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
  panel.addEventListener('dragover', (event) => {
    event.preventDefault();
    panel.classList.add('files-drop-target');
  });
  panel.addEventListener('dragleave', () => panel.classList.remove('files-drop-target'));
  panel.addEventListener('drop', (event) => {
    event.preventDefault();
    panel.classList.remove('files-drop-target');
    void upload([...(event.dataTransfer?.files ?? [])]);
  });

  try {
    const [chat, { workspaces }] = await Promise.all([api.getChat(chatId), api.listWorkspaces()]);
    location = chat.workingDirectory ? locateFiles(workspaces, chat.workingDirectory) : undefined;
    location ??= workspaces[0] && { workspace: workspaces[0], root: '' };
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
