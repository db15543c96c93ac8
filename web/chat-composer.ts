/**
 * The composer of an open chat: the message box (Enter sends, Shift+Enter is a new line, and nothing is
 * sent while a turn runs), Send while idle, Cancel while a turn runs, and the turn's status line, whose
 * every message is also spoken through the announcer in order with the answer.
 */
import { h, replaceChildren, uniqueId } from './dom.ts';
import type { LiveAnnouncer } from './live-announcer.ts';

export interface ChatComposerOptions {
  announcer: LiveAnnouncer;
  /** Whether a message may be sent now. */
  canSend: () => boolean;
  /** A message was sent (trimmed, never empty); the box is already cleared. */
  send: (message: string) => void;
  /** Cancel was pressed; its button is already disabled. */
  cancel: () => void;
}

export interface ChatComposer {
  element: HTMLFormElement;
  textarea: HTMLTextAreaElement;
  /** The visible status line, with an optional action beside it; '' clears it. */
  showStatus(text: string, action?: HTMLElement): void;
  /** Shows Cancel (enabled) and disables Send while a turn runs; the reverse when not. */
  setRunning(running: boolean): void;
  /** Enables Cancel again (after a cancel that failed). */
  enableCancel(): void;
}

export function createChatComposer(options: ChatComposerOptions): ChatComposer {
  const textarea = h('textarea', {
    id: uniqueId('message'),
    name: 'message',
    rows: 3,
    required: true,
    placeholder: 'Ask something… (Enter sends, Shift+Enter for a new line)',
  });
  const turnStatus = h('p', { class: 'turn-status' });
  const sendButton = h('button', { type: 'submit', class: 'button-primary' }, 'Send');
  const cancelButton = h('button', { type: 'button', class: 'button-danger', hidden: true }, 'Cancel');
  cancelButton.addEventListener('click', () => {
    cancelButton.disabled = true;
    options.cancel();
  });
  const form = h(
    'form',
    {
      class: 'composer',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const message = textarea.value.trim();
        if (message === '' || !options.canSend()) return;
        textarea.value = '';
        options.send(message);
      },
    },
    h('label', { for: textarea.id, class: 'visually-hidden' }, 'Message'),
    textarea,
    h('div', { class: 'composer-actions' }, turnStatus, cancelButton, sendButton),
  );
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return {
    element: form,
    textarea,
    showStatus(text, action) {
      replaceChildren(turnStatus, text, text !== '' ? action : undefined);
      if (text !== '') options.announcer.announce(text);
    },
    setRunning(running) {
      sendButton.disabled = running;
      cancelButton.hidden = !running;
      cancelButton.disabled = false;
    },
    enableCancel() {
      cancelButton.disabled = false;
    },
  };
}
