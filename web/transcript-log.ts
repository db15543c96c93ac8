/**
 * The conversation log of an open chat: the transcript's entries rendered keyed, so streaming changes
 * only what changed and open sections, disclosure choices and text selection survive; each answer is
 * one incremental markdown view (`markdown-view.ts`) that streaming appends to, spoken sentence by
 * sentence through the announcer. The log stays at its end while the reader is there and never moves
 * once they scrolled up. Renders are batched to one per frame while a turn streams.
 */
import type { ToolResultView } from './api-client.ts';
import { h } from './dom.ts';
import { createElapsedTicker } from './elapsed-time.ts';
import type { LiveAnnouncer } from './live-announcer.ts';
import { createMarkdownView, type MarkdownView } from './markdown-view.ts';
import { renderToolCallCard, toolCallSignature } from './tool-call-card.ts';
import type { ImageLoader } from './tool-result-view.ts';
import type { ToolCallEntry, Transcript, TranscriptEntry } from './transcript.ts';
import { usageText } from './usage-text.ts';

export interface TranscriptLogOptions {
  transcript: Transcript;
  loadImage: ImageLoader;
  resultViewOf: (toolName: string) => ToolResultView;
  approvalPanelOf: (call: ToolCallEntry) => HTMLElement | undefined;
  announcer: LiveAnnouncer;
  /** Runs after each render, before the log follows its end (what else shows the transcript). */
  afterRender: () => void;
}

export interface TranscriptLog {
  element: HTMLElement;
  /** Renders the transcript now. */
  render(): void;
  /** Renders it at the next frame; calls before then share that render. */
  scheduleRender(): void;
}

export function createTranscriptLog(options: TranscriptLogOptions): TranscriptLog {
  const { transcript, announcer } = options;
  // Not live itself (a log is polite by default and would be read token by token): the announcer
  // speaks streamed answers sentence by sentence.
  const log = h('div', {
    class: 'transcript',
    role: 'log',
    'aria-label': 'Conversation',
    'aria-live': 'off',
  });
  const elapsed = createElapsedTicker(log);
  /**
   * Whether the reader is at the end of the log: then new text keeps it there; scrolled up, nothing
   * moves it. Decided on the reader's own scrolling, since growing content fires no scroll event.
   */
  let following = true;
  log.addEventListener('scroll', () => {
    following = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  });
  const followIfFollowing = () => {
    if (following) log.scrollTop = log.scrollHeight;
  };
  const rendered = new Map<TranscriptEntry, { node: HTMLElement; signature: string }>();
  /** One incremental markdown view per answer: streaming appends to it instead of replacing it. */
  const answers = new Map<TranscriptEntry, { node: HTMLElement; view: MarkdownView }>();
  const answerNode = (entry: TranscriptEntry & { kind: 'assistant' }, complete: boolean): HTMLElement => {
    let answer = answers.get(entry);
    if (!answer) {
      const view = createMarkdownView(options.loadImage, followIfFollowing);
      const node = h(
        'div',
        { class: 'message message-assistant' },
        h('span', { class: 'visually-hidden' }, 'Model: '),
        view.element,
      );
      answer = { node, view };
      answers.set(entry, answer);
    }
    if (complete) {
      answer.view.finish(entry.text);
      announcer.finish(entry, entry.text);
    } else {
      answer.view.update(entry.text);
      announcer.update(entry, entry.text);
    }
    return answer.node;
  };
  const emptyNote = h('p', { class: 'list-empty' }, 'No messages yet. Say something below.');

  const render = () => {
    const nodes: HTMLElement[] = [];
    for (const [index, entry] of transcript.entries.entries()) {
      if (entry.kind === 'assistant') {
        nodes.push(answerNode(entry, !transcript.running || index < transcript.entries.length - 1));
        continue;
      }
      const signature = entrySignature(entry);
      const previous = rendered.get(entry);
      if (previous && previous.signature === signature) {
        nodes.push(previous.node);
        continue;
      }
      const node = renderEntry(entry, options.loadImage, options.resultViewOf, options.approvalPanelOf);
      if (previous) keepDisclosureState(previous.node, node);
      rendered.set(entry, { node, signature });
      nodes.push(node);
    }
    const current = new Set(transcript.entries);
    for (const key of rendered.keys()) if (!current.has(key)) rendered.delete(key);
    for (const key of answers.keys()) if (!current.has(key)) answers.delete(key);
    if (nodes.length === 0) nodes.push(emptyNote);
    // Reorder/replace only where needed so open <details> and text selection survive streaming.
    nodes.forEach((node, index) => {
      if (log.children[index] !== node) log.insertBefore(node, log.children[index] ?? null);
    });
    while (log.children.length > nodes.length) log.lastElementChild!.remove();
    elapsed.sync();
    options.afterRender();
    followIfFollowing();
  };

  let renderQueued = false;
  const scheduleRender = () => {
    if (renderQueued) return;
    renderQueued = true;
    requestAnimationFrame(() => {
      renderQueued = false;
      render();
    });
  };
  return { element: log, render, scheduleRender };
}

function entrySignature(entry: TranscriptEntry): string {
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

/** Every entry but answers, which `answerNode` keeps as incremental markdown views. */
function renderEntry(
  entry: Exclude<TranscriptEntry, { kind: 'assistant' }>,
  loadImage: ImageLoader,
  resultViewOf: (toolName: string) => ToolResultView,
  approvalPanelOf: (call: ToolCallEntry) => HTMLElement | undefined,
): HTMLElement {
  switch (entry.kind) {
    case 'user':
      return h(
        'div',
        { class: 'message message-user' },
        h('span', { class: 'visually-hidden' }, 'You: '),
        entry.text,
      );
    case 'notice':
      return h('p', { class: `notice notice-${entry.tone}` }, entry.text);
    case 'usage':
      return h('p', { class: 'turn-usage' }, usageText(entry));
    case 'tool':
      return renderToolCallCard(entry, loadImage, resultViewOf(entry.name), approvalPanelOf(entry));
  }
}

/** Carries the user's open/closed choice of each disclosure from an old card to its replacement. */
function keepDisclosureState(previous: HTMLElement, next: HTMLElement): void {
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
