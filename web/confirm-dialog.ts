/**
 * An accessible confirmation: a modal `<dialog>` (focus moves into it and is trapped by the browser,
 * Escape cancels) that resolves true only when the user presses the confirm button (or Enter in one of
 * its text fields). With `accept`, confirming first runs it: a message it returns is shown in the dialog
 * as an alert and the dialog stays open, so a refused value can be corrected in place.
 */
import { type Child, h } from './dom.ts';

export interface ConfirmOptions {
  title: string;
  body: Child;
  confirmLabel: string;
  cancelLabel?: string;
  /** Styles the confirm button as dangerous. */
  danger?: boolean;
  /** Gets focus when the dialog opens (default: the cancel button). */
  initialFocus?: HTMLElement;
  /** Runs on confirm; a returned message keeps the dialog open and shows it. */
  accept?: () => Promise<string | undefined>;
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
    const problem = h('p', { class: 'error-text', role: 'alert', hidden: true });
    const dialog = h(
      'dialog',
      { class: 'confirm-dialog', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, options.title),
      h('div', { class: 'confirm-body' }, options.body),
      problem,
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
    confirm.addEventListener('click', async () => {
      if (!options.accept) return close(true);
      confirm.disabled = true;
      const refused = await options.accept().catch((error: Error) => error.message);
      confirm.disabled = false;
      if (refused === undefined) return close(true);
      problem.textContent = refused;
      problem.hidden = false;
      (options.initialFocus ?? confirm).focus();
    });
    dialog.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && event.target instanceof HTMLInputElement && !confirm.disabled) {
        event.preventDefault();
        confirm.click();
      }
    });
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    (options.initialFocus ?? cancel).focus();
  });
}
