/**
 * The Files panel as a bottom sheet at phone width: a "Files" button in the chat's top bar opens it
 * over the lower part of the chat, and its ✕ button, Escape or a tap on the dimmed chat closes it.
 * Opening moves focus to the sheet's close button and closing returns it to the Files button, so the
 * sheet works by keyboard alone. On wide screens the CSS shows the panel as a column and hides both
 * buttons and the backdrop; the open state only matters below the phone breakpoint.
 */
import { h, uniqueId } from './dom.ts';

export interface FilesSheet {
  /** Opens the sheet (shown only at phone width). */
  open: HTMLButtonElement;
  /** Closes it; the first thing inside the sheet. */
  close: HTMLButtonElement;
  /** Dims the chat while the sheet is open; a tap on it closes the sheet. */
  backdrop: HTMLElement;
}

export function createFilesSheet(layout: HTMLElement, panel: HTMLElement): FilesSheet {
  panel.id ||= uniqueId('files-sheet');
  const open = h(
    'button',
    {
      type: 'button',
      class: 'button-quiet files-sheet-open',
      'aria-controls': panel.id,
      'aria-expanded': 'false',
    },
    'Files',
  );
  const close = h(
    'button',
    { type: 'button', class: 'button-quiet files-sheet-close', 'aria-label': 'Close the files' },
    '✕',
  );
  const backdrop = h('div', { class: 'files-sheet-backdrop', hidden: true });
  const show = (shown: boolean) => {
    layout.classList.toggle('files-open', shown);
    open.setAttribute('aria-expanded', String(shown));
    backdrop.hidden = !shown;
    if (shown) close.focus();
    else if (panel.contains(document.activeElement) || document.activeElement === document.body) open.focus();
  };
  open.addEventListener('click', () => show(true));
  close.addEventListener('click', () => show(false));
  backdrop.addEventListener('click', () => show(false));
  panel.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape' || !layout.classList.contains('files-open')) return;
    event.preventDefault();
    show(false);
  });
  return { open, close, backdrop };
}
