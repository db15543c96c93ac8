/**
 * One row of the files panel's listing: a folder opens; a file (or a link to one) is previewed when its
 * name is pressed, and has an Attach button (when the chat can take attachments) and a Download button;
 * anything else (a FIFO, a socket) is only named. Every name is a text node, so no file name can become
 * markup. A row's `signature` says when it must be drawn again: a refresh keeps the rows that did not
 * change, so focus, the list's scroll and the reader's place survive it.
 */
import type { WorkspaceFileEntry, WorkspaceFileListing } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';
import { formatSize } from './files-location.ts';

export interface FileEntryActions {
  open: () => void;
  preview: () => void;
  download: () => void;
  /** Absent: the chat takes no attachments (the button is not shown). */
  attach?: () => void;
}

/** What a row shows; a row whose signature is unchanged is kept as it is. */
export function entrySignature(entry: WorkspaceFileEntry, attachable: boolean): string {
  return JSON.stringify([entry.name, entry.type, entry.size, entry.modifiedAt, attachable]);
}

export function fileEntryItem(entry: WorkspaceFileEntry, actions: FileEntryActions): HTMLElement {
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
        h('span', { class: 'files-icon', 'aria-hidden': 'true' }, '📁'),
        h('span', { class: 'files-label' }, entry.name),
      ),
    );
  }
  if (entry.type !== 'file' && entry.type !== 'symlink') {
    return h('li', { class: 'files-entry' }, h('span', { class: 'files-name files-other' }, entry.name));
  }
  return h(
    'li',
    { class: 'files-entry' },
    h(
      'button',
      {
        type: 'button',
        class: 'files-name',
        'aria-label': `Preview ${entry.name}`,
        onclick: actions.preview,
      },
      entry.name,
    ),
    h('span', { class: 'files-size' }, entry.size === undefined ? '' : formatSize(entry.size)),
    actions.attach &&
      h(
        'button',
        {
          type: 'button',
          class: 'button-quiet files-action',
          'aria-label': `Attach ${entry.name}`,
          title: 'Attach to the message',
          onclick: actions.attach,
        },
        'Attach',
      ),
    h(
      'button',
      {
        type: 'button',
        class: 'button-quiet files-action',
        'aria-label': `Download ${entry.name}`,
        onclick: actions.download,
      },
      'Download',
    ),
  );
}

export interface FileRows {
  /** Shows `listing` in the list, drawing (with `build`) only the rows that are new or changed. */
  show(listing: WorkspaceFileListing, build: (entry: WorkspaceFileEntry) => HTMLElement): void;
}

/** The rows of `list`, by name, kept across listings of the same folder. */
export function createFileRows(list: HTMLElement, attachable: boolean): FileRows {
  let rows = new Map<string, { signature: string; node: HTMLElement }>();
  let folder: string | undefined;
  return {
    show(listing, build) {
      if (folder !== listing.path) rows = new Map();
      folder = listing.path;
      if (listing.entries.length === 0) {
        rows = new Map();
        replaceChildren(list, h('li', { class: 'list-empty' }, 'This folder is empty.'));
        return;
      }
      const next = new Map<string, { signature: string; node: HTMLElement }>();
      const nodes = listing.entries.map((entry) => {
        const signature = entrySignature(entry, attachable);
        const kept = rows.get(entry.name);
        const node = kept && kept.signature === signature ? kept.node : build(entry);
        next.set(entry.name, { signature, node });
        return node;
      });
      rows = next;
      // In place: kept rows stay the same nodes, so the list keeps its scroll and focus stays put.
      const shown = new Set<Element>(nodes);
      for (const stale of [...list.children]) if (!shown.has(stale)) stale.remove();
      nodes.forEach((node, index) => {
        if (list.children[index] !== node) list.insertBefore(node, list.children[index] ?? null);
      });
    },
  };
}
