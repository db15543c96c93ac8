/**
 * A foldable group of the Tools page: a heading whose button folds and unfolds the group's body
 * (`aria-expanded`, `aria-controls`), with room beside it for a count or a server's state and actions.
 * The group does not decide when it is open: a click asks its owner, which weighs the user's stored
 * choice against an active search (a match inside a folded group opens it) and calls `setOpen`.
 */
import { type Child, h } from './dom.ts';

export interface FoldGroup {
  element: HTMLElement;
  body: HTMLElement;
  button: HTMLButtonElement;
  /** Beside the heading: the number of tools, or how many match. */
  count: HTMLElement;
  setOpen(open: boolean): void;
}

export interface FoldGroupOptions {
  /** A DOM id stem, unique on the page. */
  domId: string;
  level: 2 | 3;
  title: Child;
  /** Shown beside the heading whether the group is open or not (a server's state, its Remove button). */
  aside?: Child;
  body: Child;
  attributes?: Record<string, string>;
  className: string;
  onToggle: () => void;
}

export function createFoldGroup(options: FoldGroupOptions): FoldGroup {
  const headingId = `${options.domId}-heading`;
  const bodyId = `${options.domId}-body`;
  const button = h(
    'button',
    { type: 'button', class: 'fold-button', 'aria-expanded': 'true', 'aria-controls': bodyId },
    options.title,
  );
  button.addEventListener('click', options.onToggle);
  const count = h('span', { class: 'group-count' });
  const body = h('div', { class: 'group-body', id: bodyId }, options.body);
  const element = h(
    'section',
    { ...options.attributes, class: options.className, 'aria-labelledby': headingId },
    h(
      'div',
      { class: 'group-header' },
      h(`h${options.level}`, { id: headingId, class: 'group-title' }, button),
      count,
      options.aside,
    ),
    body,
  );
  return {
    element,
    body,
    button,
    count,
    setOpen: (open) => {
      button.setAttribute('aria-expanded', String(open));
      body.hidden = !open;
    },
  };
}
