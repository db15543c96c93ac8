/**
 * The chat view's model answers: one incremental markdown view per answer (`markdown-view.ts`), so
 * streaming appends to it instead of replacing it, spoken sentence by sentence through the announcer.
 * After each step an image a tool call already shows is taken out of the answer (`answer-images.ts`).
 */

import { imagesShownByCalls, replaceImagesShownByCalls } from './answer-images.ts';
import { h } from './dom.ts';
import type { LiveAnnouncer } from './live-announcer.ts';
import { createMarkdownView, type MarkdownView } from './markdown-view.ts';
import type { ImageLoader } from './tool-result-view.ts';
import type { TranscriptEntry } from './transcript-entries.ts';

export interface AnswerNodesOptions {
  loadImage: ImageLoader;
  announcer: LiveAnnouncer;
  /** The transcript element (the answers' images refer to its calls' pictures). */
  log: HTMLElement;
  /** The chat's entries now. */
  entries(): readonly TranscriptEntry[];
  /** Runs after each step changed an answer (the chat keeps its scroll position with it). */
  afterStep(): void;
}

export interface AnswerNodes {
  /** The node of `entry`, brought up to its text (rendered as complete when `complete`). */
  node(entry: TranscriptEntry & { kind: 'assistant' }, complete: boolean): HTMLElement;
  /** Drops the views of answers no longer in the transcript. */
  forget(current: ReadonlySet<TranscriptEntry>): void;
}

export function createAnswerNodes(options: AnswerNodesOptions): AnswerNodes {
  const answers = new Map<TranscriptEntry, { node: HTMLElement; view: MarkdownView }>();
  return {
    node(entry, complete) {
      let answer = answers.get(entry);
      if (!answer) {
        const view: MarkdownView = createMarkdownView(options.loadImage, () => {
          replaceImagesShownByCalls(view.element, () => imagesShownByCalls(options.entries()), options.log);
          options.afterStep();
        });
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
        options.announcer.finish(entry, entry.text);
      } else {
        answer.view.update(entry.text);
        options.announcer.update(entry, entry.text);
      }
      return answer.node;
    },
    forget(current) {
      for (const key of answers.keys()) if (!current.has(key)) answers.delete(key);
    },
  };
}
