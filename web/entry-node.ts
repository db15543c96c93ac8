/**
 * How the chat view draws a notice or a usage line (tool calls: `tool-call-nodes.ts`), the signature
 * that says when a drawn entry must be drawn again, and how an old card's open/closed disclosures carry
 * over to its replacement, so streaming never closes a section the user opened.
 */
import { h } from './dom.ts';
import type { TranscriptEntry } from './transcript.ts';
import { usageText } from './usage-text.ts';

export function entrySignature(entry: Exclude<TranscriptEntry, { kind: 'tool' }>): string {
  switch (entry.kind) {
    case 'notice':
      return entry.text;
    case 'usage':
      return usageText(entry);
    default:
      return String(entry.text.length);
  }
}

/** Notices and usage lines (answers: `answerNode`'s markdown views; user messages: the rerun controller's). */
export function renderEntry(
  entry: Exclude<TranscriptEntry, { kind: 'assistant' | 'user' | 'tool' }>,
): HTMLElement {
  switch (entry.kind) {
    case 'notice':
      return h('p', { class: `notice notice-${entry.tone}` }, entry.text);
    case 'usage':
      return h('p', { class: 'turn-usage' }, usageText(entry));
  }
}

/** Carries the user's open/closed choice of each disclosure from an old card to its replacement. */
export function keepDisclosureState(previous: HTMLElement, next: HTMLElement): void {
  const before = previous.querySelectorAll('details');
  const after = next.querySelectorAll('details');
  for (const oldDetails of before) {
    const match = [...after].find((candidate) => candidate.className === oldDetails.className);
    if (match && oldDetails.dataset.userToggled === 'true') {
      match.open = oldDetails.open;
      match.dataset.userToggled = 'true';
    }
  }
}
