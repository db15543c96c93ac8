/**
 * The files panel beside an open chat: the chat's working directory, folders first, named by its
 * workspace ("My workspace / app"), never by the server's path; walk into folders and back (never above
 * the working directory, which is what the chat's tools reach); upload by drag and drop or with a file
 * input; preview a text file or an image (`files-preview.ts`); download a file (`files-transfer.ts`);
 * attach a file to the message being written. Errors are shown in the panel.
 *
 * The panel stays current by itself: after every tool result that can have changed files
 * (`files-refresh.ts`, from the tool's declared traits) it lists its folder again, a burst of results
 * once. A refresh keeps the folder the user is in, the rows that did not change (and so focus and the
 * list's scroll); when the folder itself went away, it shows the nearest folder above that still exists.
 */
import {
  type ApiClient,
  ApiError,
  type WorkspaceFileEntry,
  type WorkspaceFileListing,
} from './api-client.ts';
import { h, replaceChildren, uniqueId } from './dom.ts';
import { createFileRows, type FileRows, fileEntryItem } from './files-entry.ts';
import {
  attachmentAt,
  childPath,
  type FilesLocation,
  locateFiles,
  parentPath,
  placeName,
} from './files-location.ts';
import { openFilePreview } from './files-preview.ts';
import { refreshAfterToolResults } from './files-refresh.ts';
import { acceptDroppedFiles, downloadFile, uploadFiles } from './files-transfer.ts';
import { type AttachmentTray, MAX_ATTACHMENTS } from './message-attachments.ts';

export interface FilesPanelOptions {
  api: ApiClient;
  chatId: string;
  /** Where the chat view's tool results bubble to (the chat page's layout). */
  events: EventTarget;
  /** The message's attachments; absent, files cannot be attached. */
  attachments?: AttachmentTray;
}

export async function mountFilesPanel(panel: HTMLElement, options: FilesPanelOptions): Promise<void> {
  const parts = buildPanel(panel);
  const state: PanelState = {
    api: options.api,
    attachments: options.attachments,
    parts,
    rows: createFileRows(parts.list, options.attachments !== undefined),
    location: undefined,
    directory: '',
  };
  const go = (directory: string | undefined) => {
    if (directory === undefined) return;
    state.directory = directory;
    void renderFolder(state, true);
  };
  refreshAfterToolResults(state.api, options.events, () => renderFolder(state, false));
  wireControls(panel, parts, {
    up: () => go(state.location ? parentPath(state.directory, state.location.root) : undefined),
    refresh: () => void renderFolder(state, true),
    upload: (files) => void uploadInto(state, files, state.directory),
  });

  try {
    const location = await chatFilesLocation(state.api, options.chatId);
    if (!location) {
      showError(state, 'No workspace holds this chat’s working directory.');
      return;
    }
    state.location = location;
    if (location.workspace.access === 'read-only') {
      parts.input.disabled = true;
      parts.inputLabel.setAttribute('aria-disabled', 'true');
    } else {
      // An upload from the composer lands in the chat's own folder, then is attached.
      state.attachments?.setUploader(async (files) => {
        for (const name of await uploadInto(state, files, location.root))
          attachFile(state, childPath(location.root, name), name);
      });
    }
    state.directory = location.root;
    await renderFolder(state, true);
  } catch (caught) {
    showError(state, `Could not load the files: ${(caught as Error).message}`);
  }
}

/** What one mounted panel knows: where it is and the parts it updates. */
interface PanelState {
  api: ApiClient;
  attachments: AttachmentTray | undefined;
  parts: ReturnType<typeof buildPanel>;
  rows: FileRows;
  location: FilesLocation | undefined;
  /** The folder shown, relative to the workspace root. */
  directory: string;
}

function showError(state: PanelState, message: string): void {
  state.parts.error.textContent = message;
}

function attachFile(state: PanelState, path: string, name: string): void {
  if (!state.location || !state.attachments) return;
  const added = state.attachments.add(attachmentAt(state.location, path, name));
  showError(state, added ? '' : `A message carries at most ${MAX_ATTACHMENTS} files; remove one first.`);
}

/** Uploads into `directory`, shows the folder again, and answers the names uploaded. */
async function uploadInto(state: PanelState, files: readonly File[], directory: string): Promise<string[]> {
  if (!state.location || files.length === 0) return [];
  showError(state, '');
  const target = { api: state.api, workspaceId: state.location.workspace.id, directory: () => directory };
  const report = (message: string) => showError(state, message);
  const { uploaded } = await uploadFiles(target, files, { status: state.parts.status, showError: report });
  await renderFolder(state, false);
  return uploaded;
}

function rowFor(state: PanelState, entry: WorkspaceFileEntry, workspaceId: string): HTMLElement {
  const { api } = state;
  const path = childPath(state.directory, entry.name);
  const report = (message: string) => showError(state, message);
  const download = () => void downloadFile(api, workspaceId, path, entry.name, report);
  const attach = state.attachments ? () => attachFile(state, path, entry.name) : undefined;
  const place = state.location ? placeName(state.location, state.directory) : '';
  return fileEntryItem(entry, {
    open: () => {
      state.directory = path;
      void renderFolder(state, true);
    },
    preview: () =>
      openFilePreview({
        api,
        workspaceId,
        path,
        name: entry.name,
        place,
        size: entry.size,
        download,
        attach,
      }),
    download,
    attach,
  });
}

/**
 * Lists the panel's folder. A navigation says "Loading…"; a refresh replaces the rows only once it has
 * them, and when the folder went away (a tool removed it) shows the nearest one above that still exists.
 */
async function renderFolder(state: PanelState, navigation: boolean): Promise<void> {
  const { location, parts } = state;
  if (!location) return;
  const workspaceId = location.workspace.id;
  if (navigation) {
    showError(state, '');
    parts.status.textContent = 'Loading…';
  }
  try {
    const listing = await state.api.listWorkspaceFiles(workspaceId, state.directory);
    state.directory = listing.path;
    parts.where.textContent = placeName(location, listing.path);
    parts.upButton.disabled = parentPath(listing.path, location.root) === undefined;
    parts.status.textContent = listingNotes(listing);
    if (!navigation) showError(state, '');
    state.rows.show(listing, (entry) => rowFor(state, entry, workspaceId));
  } catch (caught) {
    const parent = parentPath(state.directory, location.root);
    if (!navigation && caught instanceof ApiError && caught.status === 404 && parent !== undefined) {
      state.directory = parent;
      return renderFolder(state, false);
    }
    parts.status.textContent = '';
    showError(state, `Could not list the folder: ${(caught as Error).message}`);
  }
}

/** The toolbar's buttons, the file input and drops on the panel, wired to the panel's actions. */
function wireControls(
  panel: HTMLElement,
  parts: ReturnType<typeof buildPanel>,
  actions: { up: () => void; refresh: () => void; upload: (files: File[]) => void },
): void {
  parts.upButton.addEventListener('click', actions.up);
  parts.refreshButton.addEventListener('click', actions.refresh);
  parts.input.addEventListener('change', () => {
    const chosen = [...(parts.input.files ?? [])];
    parts.input.value = '';
    actions.upload(chosen);
  });
  acceptDroppedFiles(panel, actions.upload);
}

/** The folder the panel opens at: the chat's working directory, else the first workspace's root. */
async function chatFilesLocation(api: ApiClient, chatId: string): Promise<FilesLocation | undefined> {
  const [chat, { workspaces }] = await Promise.all([api.getChat(chatId), api.listWorkspaces()]);
  const location = chat.workingDirectory ? locateFiles(workspaces, chat.workingDirectory) : undefined;
  return location ?? (workspaces[0] && { workspace: workspaces[0], root: '' });
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
