/**
 * The chat view's tool call nodes: one group per model response (`tool-call-group.ts`), one card per
 * call (`tool-call-card.ts`), each card drawn again only when its call changed (its signature), with the
 * user's open/closed disclosures and its loaded pictures carried over, so streaming never folds what the
 * user opened nor fetches an image twice. A card
 * whose call waits for approval is handed back once to be brought into view.
 */
import type { ToolResultView } from './api-client.ts';
import { keepDisclosureState } from './entry-node.ts';
import { renderToolCallCard, toolCallSignature } from './tool-call-card.ts';
import { createToolCallGroup, type ToolCallGroup } from './tool-call-group.ts';
import type { ImageLoader } from './tool-result-view.ts';
import type { ToolCallEntry, TranscriptEntry } from './transcript-entries.ts';

export interface ToolCallNodesOptions {
  loadImage: ImageLoader;
  resultViewOf(toolName: string): ToolResultView;
  /** The answer panel of a waiting call, kept by the chat view's approvals. */
  panelFor(call: ToolCallEntry): HTMLElement | undefined;
}

export interface ToolCallNodes {
  /** The group node of `calls` (one model response's); cards to bring into view are added to `toReveal`. */
  render(calls: readonly ToolCallEntry[], toReveal: HTMLElement[]): HTMLElement;
  /** Drops the nodes of calls no longer in the transcript. */
  forget(current: ReadonlySet<TranscriptEntry>): void;
}

/**
 * Moves the old card's pictures into the new one where they show the same image, so a card drawn
 * again (its next progress event, its result) does not fetch its images again.
 */
function keepLoadedImages(previous: HTMLElement, next: HTMLElement): void {
  const loaded = new Map<string, HTMLElement>();
  for (const figure of previous.querySelectorAll<HTMLElement>('.call-images figure[data-image-source]'))
    loaded.set(figure.dataset.imageSource!, figure);
  for (const figure of next.querySelectorAll<HTMLElement>('.call-images figure[data-image-source]')) {
    const old = loaded.get(figure.dataset.imageSource!);
    const caption = (element: HTMLElement) => element.querySelector('figcaption')?.textContent;
    if (!old || caption(old) !== caption(figure)) continue;
    figure.dataset.replaced = 'true';
    figure.replaceWith(old);
  }
}

export function createToolCallNodes(options: ToolCallNodesOptions): ToolCallNodes {
  const cards = new Map<ToolCallEntry, { node: HTMLElement; signature: string }>();
  /** Keyed by the group's first call, which stays first while the response's calls arrive. */
  const groups = new Map<ToolCallEntry, ToolCallGroup>();
  /** Answer panels already brought into view once; the reader may scroll away from them after. */
  const revealed = new WeakSet<HTMLElement>();

  const card = (call: ToolCallEntry, toReveal: HTMLElement[]): HTMLElement => {
    const signature = toolCallSignature(call);
    const previous = cards.get(call);
    if (previous && previous.signature === signature) return previous.node;
    const panel = options.panelFor(call);
    const node = renderToolCallCard(call, options.loadImage, options.resultViewOf(call.name), panel);
    if (panel && !revealed.has(panel)) {
      revealed.add(panel);
      toReveal.push(node);
    }
    if (previous) {
      keepDisclosureState(previous.node, node);
      keepLoadedImages(previous.node, node);
    }
    cards.set(call, { node, signature });
    return node;
  };

  return {
    render(calls, toReveal) {
      const first = calls[0]!;
      let group = groups.get(first);
      if (!group) {
        group = createToolCallGroup();
        groups.set(first, group);
      }
      group.update(
        calls,
        calls.map((call) => card(call, toReveal)),
      );
      return group.element;
    },
    forget(current) {
      for (const key of cards.keys()) if (!current.has(key)) cards.delete(key);
      for (const key of groups.keys()) if (!current.has(key)) groups.delete(key);
    },
  };
}
