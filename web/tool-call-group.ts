/**
 * The calls of one model response as one block: a summary line ("5 tool calls: read_file ×3, grep,
 * glob — 3 of 5 done") that folds the calls' one-line rows away, and the rows. A group starts folded,
 * unless one of its calls asked for approval or made images (what the user must see or judge); the
 * user's own choice then holds across re-renders. A call waiting for an answer is never hidden: a folded
 * group still shows it. A lone call has no summary line, only its row. The element is kept while the
 * group lives, so re-rendering a call replaces its row and never the user's fold.
 */
import { h, uniqueId } from './dom.ts';
import { groupStatus, groupSummary } from './tool-call-summary.ts';
import type { ToolCallEntry } from './transcript-entries.ts';

export interface ToolCallGroup {
  element: HTMLElement;
  /** Shows `calls` as `cards` (one each, in order). */
  update(calls: readonly ToolCallEntry[], cards: readonly HTMLElement[]): void;
}

export function createToolCallGroup(): ToolCallGroup {
  const rows = h('div', { class: 'call-group-rows', id: uniqueId('call-group') });
  const summary = h('span', { class: 'call-group-summary' });
  const status = h('span', { class: 'call-group-status' });
  const toggle = h(
    'button',
    { type: 'button', class: 'call-group-toggle', 'aria-controls': rows.id, 'aria-expanded': 'false' },
    h('span', { class: 'call-group-chevron', 'aria-hidden': 'true' }),
    summary,
    status,
  );
  const element = h(
    'section',
    { class: 'call-group' },
    h('div', { class: 'call-group-header' }, toggle),
    rows,
  );
  let chosen: boolean | undefined;
  let shown: { calls: readonly ToolCallEntry[]; cards: readonly HTMLElement[] } = { calls: [], cards: [] };

  const apply = () => {
    const { calls, cards } = shown;
    const single = calls.length === 1;
    const open =
      single ||
      (chosen ??
        calls.some(
          (call) => call.approval !== undefined || cards[calls.indexOf(call)]?.querySelector('.call-images'),
        ));
    element.classList.toggle('call-group-single', single);
    element.classList.toggle('call-group-folded', !open);
    toggle.setAttribute('aria-expanded', String(open));
    cards.forEach((card, index) => {
      card.hidden = !open && calls[index]!.status !== 'waiting';
    });
    rows.hidden = cards.every((card) => card.hidden);
  };

  toggle.addEventListener('click', () => {
    chosen = toggle.getAttribute('aria-expanded') !== 'true';
    apply();
  });

  return {
    element,
    update(calls, cards) {
      shown = { calls, cards };
      const text = groupSummary(calls);
      const state = groupStatus(calls);
      summary.textContent = text;
      status.textContent = state.text;
      status.className = `call-group-status group-${state.tone}`;
      element.setAttribute('aria-label', calls.length === 1 ? `Tool call ${calls[0]!.name}` : text);
      // Reorder or replace only where needed, so an open row keeps its place and its selection.
      cards.forEach((card, index) => {
        if (rows.children[index] !== card) rows.insertBefore(card, rows.children[index] ?? null);
      });
      while (rows.children.length > cards.length) rows.lastElementChild!.remove();
      apply();
    },
  };
}
