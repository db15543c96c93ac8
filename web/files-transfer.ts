/**
 * Moving files between the browser and a workspace for the files panel: an upload of chosen or dropped
 * files into a folder (a name that exists is replaced only when the user says so), and a download
 * fetched with the bearer token and saved through a `blob:` link, so the token never appears in a URL.
 */
import { type ApiClient, ApiError } from './api-client.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h } from './dom.ts';

export interface UploadTarget {
  api: ApiClient;
  workspaceId: string;
  /** The folder, relative to the workspace root. */
  directory: () => string;
}

export interface UploadView {
  status: HTMLElement;
  showError: (message: string) => void;
}

/**
 * Uploads `files` one by one into the folder; a name that exists is replaced only when the user says
 * so. The first failure stops the rest and is shown. Answers the names now in the folder (a file the
 * user chose not to replace is not among them) and whether every upload went through.
 */
export async function uploadFiles(
  target: UploadTarget,
  files: readonly File[],
  view: UploadView,
): Promise<{ uploaded: string[]; complete: boolean }> {
  const { api, workspaceId } = target;
  const uploaded: string[] = [];
  for (const file of files) {
    view.status.textContent = `Uploading ${file.name}…`;
    try {
      await api.uploadWorkspaceFile(workspaceId, target.directory(), file, false);
      uploaded.push(file.name);
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
          uploaded.push(file.name);
        } catch (again) {
          view.showError(`Could not upload ${file.name}: ${(again as Error).message}`);
          view.status.textContent = '';
          return { uploaded, complete: false };
        }
      } else {
        view.showError(`Could not upload ${file.name}: ${(caught as Error).message}`);
        view.status.textContent = '';
        return { uploaded, complete: false };
      }
    }
  }
  view.status.textContent = '';
  return { uploaded, complete: true };
}

/** Downloads one file of the workspace; a failure is shown in the panel. */
export async function downloadFile(
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

/** Files dropped on `panel` are uploaded; the panel is marked as a drop target while one is dragged over. */
export function acceptDroppedFiles(panel: HTMLElement, upload: (files: File[]) => void): void {
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
