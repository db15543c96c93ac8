/**
 * An accessible confirmation: a modal `<dialog>` (focus moves into it and is trapped by the browser,
 * Escape cancels) that resolves true only when the user presses the confirm button.
 */
import { type Child, h } from './dom.ts';

export interface ConfirmOptions {
  title: string;
  body: Child;
  confirmLabel: string;
  cancelLabel?: string;
  /** Styles the confirm button as dangerous. */
  danger?: boolean;
}

export function confirmWithDialog(options: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const titleId = `confirm-title-${Date.now()}`;
    const previousFocus = document.activeElement as HTMLElement | null;
    const cancel = h(
      'button',
      { type: 'button', class: 'button-secondary', value: 'cancel' },
      options.cancelLabel ?? 'Cancel',
    );
    const confirm = h(
      'button',
      { type: 'button', class: options.danger ? 'button-danger' : 'button-primary', value: 'confirm' },
      options.confirmLabel,
    );
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, options.title),
      h('div', { class: 'confirm-body' }, options.body),
      h('div', { class: 'dialog-actions' }, cancel, confirm),
    );
    let settled = false;
    const close = (answer: boolean) => {
      if (settled) return;
      settled = true;
      dialog.close();
      dialog.remove();
      previousFocus?.focus();
      resolve(answer);
    };
    cancel.addEventListener('click', () => close(false));
    confirm.addEventListener('click', () => close(true));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
