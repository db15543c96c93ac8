/**
 * The open chat's composer: the message field (as tall as its text; Enter sends, Shift+Enter breaks
 * the line), the files attached to the message as removable chips with an "Attach files" upload
 * (`attachment-chips.ts`), the turn's status line, Cancel and Send. Sending empties the field and the
 * attachments and hands both to the view; a send the server refused puts them back (`restore`).
 */
import { composerAttachments } from './attachment-chips.ts';
import { autoGrow } from './auto-grow.ts';
import { h, uniqueId } from './dom.ts';
import type { AttachmentTray, MessageAttachment } from './message-attachments.ts';

export interface ComposerOptions {
  /** True while a turn runs: nothing is sent then. */
  busy: () => boolean;
  send: (message: string, attachments: MessageAttachment[]) => void;
  /** The message's attachments; absent, the composer has none. */
  attachments?: AttachmentTray;
}

export interface Composer {
  form: HTMLFormElement;
  textarea: HTMLTextAreaElement;
  turnStatus: HTMLElement;
  sendButton: HTMLButtonElement;
  cancelButton: HTMLButtonElement;
  /** Puts a refused message back (unless something new was typed) with its attachments. */
  restore(message: string, attachments: readonly MessageAttachment[]): void;
}

export function createComposer(options: ComposerOptions): Composer {
  const textarea = h('textarea', {
    id: uniqueId('message'),
    name: 'message',
    rows: 2,
    required: true,
    placeholder: 'Ask something… (Enter sends, Shift+Enter for a new line)',
  });
  const size = autoGrow(textarea);
  const turnStatus = h('p', { class: 'turn-status' });
  const sendButton = h('button', { type: 'submit', class: 'button-primary' }, 'Send');
  const cancelButton = h('button', { type: 'button', class: 'button-danger', hidden: true }, 'Cancel');
  const tray = options.attachments;
  const attached = tray ? composerAttachments(tray) : undefined;
  const form = h(
    'form',
    {
      class: 'composer',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const message = textarea.value.trim();
        if (message === '' || options.busy()) return;
        textarea.value = '';
        size.resize();
        options.send(message, tray?.take() ?? []);
      },
    },
    h('label', { for: textarea.id, class: 'visually-hidden' }, 'Message'),
    attached?.chips,
    textarea,
    // The status line (with Review while a call waits) comes first, so Tab from the message reaches a
    // waiting call before anything else.
    h('div', { class: 'composer-actions' }, turnStatus, attached?.attach, cancelButton, sendButton),
  );
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return {
    form,
    textarea,
    turnStatus,
    sendButton,
    cancelButton,
    restore(message, attachments) {
      if (textarea.value.trim() === '') textarea.value = message;
      size.resize();
      if (attachments.length > 0) tray?.restore(attachments);
    },
  };
}
