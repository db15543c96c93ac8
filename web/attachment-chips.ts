/**
 * Attachments as people see them: the composer's removable chips (one per file in the tray, its remove
 * button named after the file) with an "Attach files" input that uploads into the chat's folder, and
 * the chips of a sent message (each file by name). Every name is a text node.
 */
import { h, replaceChildren, uniqueId } from './dom.ts';
import type { AttachmentTray } from './message-attachments.ts';

/** The composer's attachment row, kept in step with `tray`; empty (and taking no room) with no file. */
export function composerAttachments(tray: AttachmentTray): { chips: HTMLElement; attach: HTMLElement } {
  const chips = h('ul', { class: 'attachment-chips', 'aria-label': 'Attached files' });
  const inputId = uniqueId('attach-input');
  const input = h('input', { type: 'file', id: inputId, multiple: true, class: 'visually-hidden' });
  const label = h(
    'label',
    {
      for: inputId,
      class: 'button-quiet composer-attach',
      title: 'Upload files into the chat’s folder and attach them',
    },
    'Attach files',
  );
  input.addEventListener('change', () => {
    const chosen = [...(input.files ?? [])];
    input.value = '';
    if (chosen.length > 0) void tray.upload?.(chosen);
  });
  const sync = () => {
    const items = tray.list();
    chips.hidden = items.length === 0;
    replaceChildren(
      chips,
      items.map((item) =>
        h(
          'li',
          { class: 'attachment-chip', title: item.place },
          h('span', { class: 'attachment-name' }, item.name),
          h(
            'button',
            {
              type: 'button',
              class: 'button-quiet attachment-remove',
              'aria-label': `Remove attachment ${item.name}`,
              onclick: () => tray.remove(item.path),
            },
            '✕',
          ),
        ),
      ),
    );
    input.disabled = tray.upload === undefined;
    label.hidden = tray.upload === undefined;
  };
  tray.subscribe(sync);
  sync();
  return { chips, attach: h('span', { class: 'composer-attach-slot' }, input, label) };
}

/** The file name of an absolute path. */
function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1) || path;
}

/** A sent message's attachments, by file name; undefined when it has none. */
export function sentAttachments(paths: readonly string[] | undefined): HTMLElement | undefined {
  if (!paths || paths.length === 0) return undefined;
  return h(
    'ul',
    { class: 'attachment-chips attachment-chips-sent', 'aria-label': 'Attached files' },
    paths.map((path) => h('li', { class: 'attachment-chip' }, fileName(path))),
  );
}
