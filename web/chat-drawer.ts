/**
 * The chat list as a drawer on narrow screens: a "Chats" button opens it over the chat, and the close
 * button, Escape or a tap beside it closes it. Opening moves focus into the drawer and closing returns
 * it to the button, so it works by keyboard alone. On wide screens the CSS shows the list as a column
 * and hides both buttons; the state only matters below the phone breakpoint.
 */
import { h, uniqueId } from './dom.ts';

export interface ChatDrawer {
  /** Opens the drawer (shown only at phone width). */
  toggle: HTMLButtonElement;
  /** Closes it, inside the drawer. */
  close: HTMLButtonElement;
  /** Covers the chat while the drawer is open; a tap on it closes the drawer. */
  backdrop: HTMLElement;
  setOpen(open: boolean): void;
}

export function createChatDrawer(layout: HTMLElement, sidebar: HTMLElement): ChatDrawer {
  sidebar.id ||= uniqueId('chat-drawer');
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'button-quiet drawer-toggle',
      'aria-controls': sidebar.id,
      'aria-expanded': 'false',
    },
    '☰ Chats',
  );
  const close = h(
    'button',
    { type: 'button', class: 'button-quiet drawer-close', 'aria-label': 'Close the chat list' },
    '✕',
  );
  const backdrop = h('div', { class: 'drawer-backdrop', hidden: true });
  const setOpen = (open: boolean) => {
    layout.classList.toggle('drawer-open', open);
    toggle.setAttribute('aria-expanded', String(open));
    backdrop.hidden = !open;
    if (open) close.focus();
    else if (sidebar.contains(document.activeElement)) toggle.focus();
  };
  toggle.addEventListener('click', () => setOpen(true));
  close.addEventListener('click', () => setOpen(false));
  backdrop.addEventListener('click', () => setOpen(false));
  sidebar.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && layout.classList.contains('drawer-open')) {
      event.preventDefault();
      setOpen(false);
    }
  });
  return { toggle, close, backdrop, setOpen };
}
