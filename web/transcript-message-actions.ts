/**
 * The DOM of the transcript's message actions (docs/web.md, "Message actions"): the Edit button on a
 * user message, the form that edits it in place, and the Regenerate / Retry bar under the transcript.
 * Every action is a real button (keyboard reachable, named for screen readers); the Edit button shows
 * an icon and is named by its title, so the message's own text stays what the transcript reads and
 * the composer stays the one control labelled "Message".
 * What each action says about tools' effects is written here once.
 */
import { h, uniqueId } from './dom.ts';

/** Shown wherever a rerun is offered: the replaced part's tool calls are not undone. */
export const EFFECTS_NOT_UNDONE =
  'What tools did in the replaced part (files written, commands run) is not undone; the model is told those calls ran.';

const SVG = 'http://www.w3.org/2000/svg';

/** A pencil, drawn rather than a character, so it adds nothing to the message's text. */
function pencilIcon(): SVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', 'M11.5 1.5l3 3L5 14H2v-3z');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '1.5');
  svg.append(path);
  return svg;
}

/** The first words of a message, to tell its Edit button from the others'. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

export function editButton(text: string, onClick: () => void): HTMLButtonElement {
  const button = h('button', {
    type: 'button',
    class: 'message-edit-button',
    title: `Edit your message “${excerpt(text)}”`,
    onclick: onClick,
  });
  button.append(pencilIcon());
  return button;
}

export interface EditFormOptions {
  text: string;
  /** Sends the edited text (trimmed, not empty). */
  submit: (text: string) => void;
  cancel: () => void;
}

/** The in-place form of an edit: its text, what sending it replaces, Send edit and Cancel (or Escape). */
export function editForm(options: EditFormOptions): { element: HTMLElement; focus: () => void } {
  const noteId = uniqueId('edit-note');
  const textarea = h('textarea', {
    class: 'message-edit-text',
    rows: Math.min(10, Math.max(2, options.text.split('\n').length)),
    'aria-label': 'Edit your message',
    'aria-describedby': noteId,
  });
  textarea.value = options.text;
  const form = h(
    'form',
    {
      class: 'message-edit-form',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const text = textarea.value.trim();
        if (text !== '') options.submit(text);
      },
    },
    textarea,
    h(
      'p',
      { class: 'message-edit-note', id: noteId },
      `Sending replaces this message and everything after it. ${EFFECTS_NOT_UNDONE}`,
    ),
    h(
      'div',
      { class: 'message-edit-actions' },
      h('button', { type: 'button', class: 'button-secondary', onclick: options.cancel }, 'Cancel'),
      h('button', { type: 'submit', class: 'button-primary' }, 'Send edit'),
    ),
  );
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      options.cancel();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  return {
    element: form,
    focus: () => {
      textarea.focus();
      textarea.setSelectionRange(textarea.value.length, textarea.value.length);
    },
  };
}

/** The bar under the transcript: Regenerate after an answer, Retry after a failed turn. */
export function rerunBar(kind: 'regenerate' | 'retry', onClick: () => void): HTMLElement {
  return h(
    'div',
    { class: 'rerun-bar' },
    h(
      'button',
      {
        type: 'button',
        class: 'button-secondary',
        title: kind === 'retry' ? 'Run your last message again' : 'Answer your last message again',
        onclick: onClick,
      },
      kind === 'retry' ? 'Retry' : 'Regenerate',
    ),
  );
}
