/**
 * How the chat view draws a transcript entry other than an answer (a user message, a notice, a usage
 * line, a tool call card), the signature that says when a drawn entry must be drawn again, and how an
 * old card's open/closed disclosures carry over to its replacement, so streaming never closes a
 * section the user opened.
 */
import type { ToolResultView } from './api-client.ts';
import { h } from './dom.ts';
import { renderToolCallCard, toolCallSignature } from './tool-call-card.ts';
import type { ImageLoader } from './tool-result-view.ts';
import type { ToolCallEntry, TranscriptEntry } from './transcript.ts';
import { usageText } from './usage-text.ts';

export function entrySignature(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case 'tool':
      return toolCallSignature(entry);
    case 'notice':
      return entry.text;
    case 'usage':
      return usageText(entry);
    default:
      return String(entry.text.length);
  }
}

/** Every entry but answers (`answerNode`'s markdown views) and user messages (the rerun controller's). */
export function renderEntry(
  entry: Exclude<TranscriptEntry, { kind: 'assistant' | 'user' }>,
  loadImage: ImageLoader,
  resultViewOf: (toolName: string) => ToolResultView,
  approvalPanelOf: (call: ToolCallEntry) => HTMLElement | undefined,
): HTMLElement {
  switch (entry.kind) {
    case 'notice':
      return h('p', { class: `notice notice-${entry.tone}` }, entry.text);
    case 'usage':
      return h('p', { class: 'turn-usage' }, usageText(entry));
    case 'tool':
      return renderToolCallCard(entry, loadImage, resultViewOf(entry.name), approvalPanelOf(entry));
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
