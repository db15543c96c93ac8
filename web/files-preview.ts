/**
 * The files panel's preview of one file, in a modal `<dialog>` (focus moves into it, Escape closes it
 * and focus returns to the file's row): an image shown from a `blob:` URL of the bytes fetched with the
 * token (the page's CSP allows `blob:` images and nothing from elsewhere), text in a `<pre>` as a text
 * node (never HTML, so a file of markup shows its markup), or a note that the file is neither. A text
 * file is read only up to its bound, and the dialog says when it shows only the start. Download and
 * Attach work from the dialog as from the row.
 */
import type { ApiClient } from './api-client.ts';
import { h, uniqueId } from './dom.ts';
import {
  IMAGE_PREVIEW_BYTES,
  type PreviewContent,
  previewContent,
  previewLimit,
  TEXT_PREVIEW_BYTES,
} from './file-preview-content.ts';
import { formatSize } from './files-location.ts';

export interface FilePreviewRequest {
  api: ApiClient;
  workspaceId: string;
  /** Relative to the workspace root. */
  path: string;
  name: string;
  /** Where it is, as people read it. */
  place: string;
  size: number | undefined;
  download: () => void;
  /** Absent: the chat takes no attachments. */
  attach?: () => void;
}

export function openFilePreview(request: FilePreviewRequest): void {
  const titleId = uniqueId('preview-title');
  const previousFocus = document.activeElement as HTMLElement | null;
  const body = h('div', { class: 'files-preview-body' }, h('p', { role: 'status' }, 'Loading…'));
  const close = h('button', { type: 'button', class: 'button-secondary' }, 'Close');
  const dialog = h(
    'dialog',
    { class: 'files-preview', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, request.name),
    h('p', { class: 'files-preview-place' }, request.place),
    body,
    h(
      'div',
      { class: 'dialog-actions' },
      request.attach &&
        h('button', { type: 'button', class: 'button-secondary', onclick: request.attach }, 'Attach'),
      h('button', { type: 'button', class: 'button-secondary', onclick: request.download }, 'Download'),
      close,
    ),
  );
  let objectUrl: string | undefined;
  const finish = () => {
    dialog.close();
    dialog.remove();
    if (objectUrl) URL.revokeObjectURL(objectUrl);
    if (previousFocus?.isConnected) previousFocus.focus();
  };
  close.addEventListener('click', finish);
  dialog.addEventListener('cancel', (event) => {
    event.preventDefault();
    finish();
  });
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
  void request.api
    .readWorkspaceFileStart(request.workspaceId, request.path, previewLimit)
    .then((start) => {
      const content = previewContent(start);
      if (content.kind === 'image') {
        objectUrl = URL.createObjectURL(new Blob([content.bytes], { type: content.type }));
      }
      body.replaceChildren(...renderContent(content, request, objectUrl));
    })
    .catch((error: Error) => {
      body.replaceChildren(
        h('p', { class: 'error-text', role: 'alert' }, `Could not open ${request.name}: ${error.message}`),
      );
    });
}

function renderContent(
  content: PreviewContent,
  request: FilePreviewRequest,
  objectUrl: string | undefined,
): HTMLElement[] {
  switch (content.kind) {
    case 'image':
      return [h('img', { class: 'files-preview-image', src: objectUrl, alt: request.name })];
    case 'text': {
      const shown = h(
        'pre',
        { class: 'files-preview-text', tabindex: 0, 'aria-label': `Contents of ${request.name}` },
        content.text === '' ? '(empty file)' : content.text,
      );
      if (!content.cut) return [shown];
      const of = request.size === undefined ? '' : ` of ${formatSize(request.size)}`;
      return [
        h(
          'p',
          { class: 'files-preview-note' },
          `Showing the first ${formatSize(TEXT_PREVIEW_BYTES)}${of}; download the file for the rest.`,
        ),
        shown,
      ];
    }
    case 'image_too_large':
      return [
        h(
          'p',
          { class: 'files-preview-note' },
          `This image is larger than ${formatSize(IMAGE_PREVIEW_BYTES)}, too large to preview; download it.`,
        ),
      ];
    case 'binary':
      return [
        h(
          'p',
          { class: 'files-preview-note' },
          'This file is neither text nor an image the preview shows; download it to open it.',
        ),
      ];
  }
}
