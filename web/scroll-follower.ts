/**
 * Keeps a scrolling log at its end while the reader is there, whatever grows it: streamed text, a
 * tool card, an image that finished loading, or the log itself shrinking (a title wrapping onto a
 * second line, a taller composer). Scrolled away from the end, nothing moves the view and a
 * "Jump to latest" button appears; it goes back to the end and follows again.
 *
 * Whether the reader follows is decided only by scroll events, and only a move up leaves the end:
 * growing content fires none, and a layout change that nudges the position (the log shrinking) does
 * not count as the reader leaving, so a layout change cannot make the view stop following.
 * Size changes are watched with a ResizeObserver on the log and on each of its children.
 */
import { h } from './dom.ts';

export interface ScrollFollower {
  /** "Jump to latest": shown only while the reader is away from the end. */
  button: HTMLButtonElement;
  /** After a render: back to the end when following. */
  update(): void;
  /** To the end, following again (a message the user just sent). */
  jumpToLatest(): void;
  /** Brings `node` into view whether or not the reader follows (a call waiting for an answer). */
  reveal(node: Element): void;
  /** Whether new content keeps the end in view. */
  following(): boolean;
}

/** How close to the end still counts as "at the end", in CSS pixels (a wheel notch is about 100). */
const AT_END_SLACK = 48;

export function createScrollFollower(log: HTMLElement): ScrollFollower {
  let following = true;
  let lastScrollTop = log.scrollTop;
  const button = h(
    'button',
    { type: 'button', class: 'jump-to-latest', hidden: true },
    h('span', { 'aria-hidden': 'true' }, '↓ '),
    'Jump to latest',
  );
  const distanceFromEnd = () => log.scrollHeight - log.scrollTop - log.clientHeight;
  const toEnd = () => {
    log.scrollTop = log.scrollHeight;
    lastScrollTop = log.scrollTop;
  };
  const refreshButton = () => {
    button.hidden = following || distanceFromEnd() <= AT_END_SLACK;
  };
  const update = () => {
    if (following) toEnd();
    refreshButton();
  };
  log.addEventListener('scroll', () => {
    // Only a move up leaves the end; a layout change that nudges the position does not.
    if (distanceFromEnd() <= AT_END_SLACK) following = true;
    else if (log.scrollTop < lastScrollTop) following = false;
    lastScrollTop = log.scrollTop;
    refreshButton();
  });
  const resized = new ResizeObserver(() => update());
  resized.observe(log);
  for (const child of log.children) resized.observe(child);
  new MutationObserver((changes) => {
    for (const change of changes) {
      for (const node of change.addedNodes) if (node instanceof Element) resized.observe(node);
      for (const node of change.removedNodes) if (node instanceof Element) resized.unobserve(node);
    }
  }).observe(log, { childList: true });
  const jumpToLatest = () => {
    following = true;
    toEnd();
    refreshButton();
  };
  button.addEventListener('click', jumpToLatest);
  return {
    button,
    update,
    jumpToLatest,
    reveal(node) {
      const box = node.getBoundingClientRect();
      const view = log.getBoundingClientRect();
      if (box.top >= view.top && box.bottom <= view.bottom) return;
      // A card taller than the view shows its end, where its buttons are.
      log.scrollTop += box.height > view.height ? box.bottom - view.bottom : box.top - view.top;
      following = distanceFromEnd() <= AT_END_SLACK;
      refreshButton();
    },
    following: () => following,
  };
}
