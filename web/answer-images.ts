/**
 * A generated image is shown once: with the tool call that made it (`tool-call-card.ts`, under its
 * line), never again in the model's answer. An answer that embeds an image a call of the chat already
 * shows gets, in its place, a button naming it that brings the call's picture into view; any other
 * server image in an answer stays as the markdown view drew it.
 */
import { h } from './dom.ts';
import { findImages } from './tool-result-view.ts';
import type { TranscriptEntry } from './transcript-entries.ts';

/** The sources of the images the transcript's calls show (results, or progress while they run). */
export function imagesShownByCalls(entries: readonly TranscriptEntry[]): Set<string> {
  const sources = new Set<string>();
  for (const entry of entries) {
    if (entry.kind !== 'tool') continue;
    const images = findImages(entry.status === 'succeeded' ? entry.result : entry.progress);
    for (const image of images) sources.add(image.source);
  }
  return sources;
}

/**
 * Replaces each image of `answer` that a call already shows with a button that scrolls to it; the
 * calls' images are only gathered when the answer has a server image at all (this runs per step).
 */
export function replaceImagesShownByCalls(
  answer: HTMLElement,
  shownByCalls: () => ReadonlySet<string>,
  log: HTMLElement,
): void {
  const images = answer.querySelectorAll<HTMLImageElement>('img[data-server-image]');
  if (images.length === 0) return;
  const shown = shownByCalls();
  for (const image of images) {
    const source = image.dataset.serverImage ?? '';
    if (!shown.has(source)) continue;
    const name = image.alt || 'image';
    const button = h(
      'button',
      {
        type: 'button',
        class: 'button-quiet answer-image-ref',
        onclick: () => {
          const figure = [...log.querySelectorAll<HTMLElement>('.call-images figure')].find(
            (candidate) => candidate.dataset.imageSource === source,
          );
          figure?.scrollIntoView({ block: 'center' });
        },
      },
      `Image: ${name} (shown with its tool call above)`,
    );
    image.replaceWith(button);
  }
}
