/**
 * A model answer in the page, rendered as markdown while it streams: complete blocks are sanitized and
 * appended once (`markdown-stream.ts`), only the open block at the end is replaced on each update, so
 * selection, scroll position and copy buttons of earlier blocks survive. Every piece of HTML passes
 * DOMPurify with an allow-list of tags and attributes before it touches the document (the renderer
 * already emits no raw HTML; this is the second lock). Server images are fetched with the token.
 * Code is highlighted at idle time, not in the step that mounts its chunk: a chunk with code is shown
 * plain, then replaced by its highlighted HTML (same text) once its languages are loaded (each on first
 * use) and the page is idle, so highlighting never lengthens a frame of the stream. Math is typeset by
 * `math-typesetter.ts` (KaTeX fetched on first use) and Copy buttons are named per block
 * (`copy-button-names.ts`), also in a chunk replaced by its highlighted HTML.
 */
import DOMPurify from 'dompurify';
import { nameCopyButtons } from './copy-button-names.ts';
import { h } from './dom.ts';
import { loadLanguage } from './highlight-languages.ts';
import { isSafeLink, isServerImage } from './markdown-renderer.ts';
import { IncrementalMarkdown, type MarkdownChunk, type MarkdownStep } from './markdown-stream.ts';
import { typesetMath } from './math-typesetter.ts';
import type { ImageLoader } from './tool-result-view.ts';

/** The markup the renderer writes, and nothing else (no style: the page's policy refuses inline styles). */
const ALLOWED_TAGS = (
  'a blockquote br button code del div em h1 h2 h3 h4 h5 h6 hr img input label li ol p pre s span ' +
  'strong table tbody td th thead tr ul'
).split(' ');
const ALLOWED_ATTR = 'alt checked class data-server-image disabled href rel start target title type'.split(
  ' ',
);
/** Attributes whose values are not URLs, so DOMPurify must not judge them as one (it would drop them). */
const NOT_URL_ATTR = 'checked disabled rel start target type'.split(' ');

/** Sanitized nodes for `html`: allow-listed markup only, links and images checked again. */
export function sanitizeMarkdownHtml(html: string, loadImage: ImageLoader): DocumentFragment {
  const fragment = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ADD_URI_SAFE_ATTR: NOT_URL_ATTR,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#|\/(?!\/))/i,
    RETURN_DOM_FRAGMENT: true,
  });
  // The only input the renderer writes is a task list's checkbox, which an answer never lets anyone tick.
  for (const input of fragment.querySelectorAll('input')) {
    if (input.type !== 'checkbox') input.remove();
    else input.disabled = true;
  }
  for (const link of fragment.querySelectorAll('a')) {
    const href = link.getAttribute('href') ?? '';
    if (!isSafeLink(href)) {
      link.replaceWith(...link.childNodes);
      continue;
    }
    if (!href.startsWith('#')) {
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
    }
  }
  for (const image of fragment.querySelectorAll('img')) {
    const source = image.dataset.serverImage ?? '';
    image.removeAttribute('src');
    if (!isServerImage(source)) {
      image.remove();
      continue;
    }
    image.loading = 'lazy';
    loadImage(source).then(
      (url) => {
        image.src = url;
      },
      () => {
        image.replaceWith(document.createTextNode(`[image unavailable: ${image.alt || source}]`));
      },
    );
  }
  return fragment;
}

/** Copies `text`; false when neither the clipboard API nor the copy command could. */
export async function copyText(text: string): Promise<boolean> {
  if (window.isSecureContext && navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused or no focus: try the older way below.
    }
  }
  const scratch = h('textarea', { class: 'visually-hidden', readonly: true, 'aria-hidden': 'true' });
  scratch.value = text;
  document.body.append(scratch);
  scratch.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  scratch.remove();
  return copied;
}

async function onCopyClick(button: HTMLButtonElement): Promise<void> {
  const code = button.closest('.markdown-code')?.querySelector('code');
  if (!code) return;
  const copied = await copyText(code.textContent ?? '');
  if (!copied) {
    // Last resort: select the code so the user's own Ctrl+C / ⌘C copies it.
    const range = document.createRange();
    range.selectNodeContents(code);
    const selection = window.getSelection();
    selection?.removeAllRanges();
    selection?.addRange(range);
  }
  // Only the visible word changes: the hidden rest of the name still says which block it is.
  const action = button.querySelector('.copy-code-action') ?? button;
  action.textContent = copied ? 'Copied' : 'Selected: press Ctrl+C';
  setTimeout(() => {
    action.textContent = 'Copy';
  }, 2000);
}

/**
 * Jobs run one after another at idle time (`requestIdleCallback`, within a second even on a busy
 * page; a timer where the browser has none), as many per idle period as it leaves time for.
 */
function highlightQueue(): { add(job: () => void): void } {
  const jobs: (() => void)[] = [];
  let scheduled = false;
  const idle =
    typeof requestIdleCallback === 'function'
      ? (run: (deadline?: IdleDeadline) => void) => requestIdleCallback(run, { timeout: 1000 })
      : (run: (deadline?: IdleDeadline) => void) => setTimeout(run, 50);
  const drain = (deadline?: IdleDeadline) => {
    scheduled = false;
    do jobs.shift()?.();
    while (jobs.length > 0 && deadline !== undefined && !deadline.didTimeout && deadline.timeRemaining() > 8);
    if (jobs.length > 0) schedule();
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    idle(drain);
  };
  return {
    add(job) {
      jobs.push(job);
      schedule();
    },
  };
}

export interface MarkdownView {
  element: HTMLElement;
  /** The answer so far; cheap when nothing changed. */
  update(text: string): void;
  /** The answer is complete: the last block is rendered like the others (highlighted). */
  finish(text: string): void;
}

/** `afterStep` runs after each step changed the view (the chat keeps its scroll position with it). */
export function createMarkdownView(loadImage: ImageLoader, afterStep: () => void = () => {}): MarkdownView {
  const renderer = new IncrementalMarkdown({ deferHighlighting: true });
  const element = h('div', { class: 'markdown-body' });
  const live = h('div', { class: 'markdown-live' });
  element.append(live);
  let lastText: string | undefined;
  let finished = false;
  // KaTeX arrived: typeset what holds math by now (the live block may have changed meanwhile).
  const afterMathLoaded = () => {
    typesetMath(element, afterMathLoaded);
    afterStep();
  };

  element.addEventListener('click', (event) => {
    const target = event.target;
    const button = target instanceof Element ? target.closest('button.copy-code') : null;
    if (button instanceof HTMLButtonElement) void onCopyClick(button);
  });

  const highlighter = highlightQueue();
  /** Puts the chunk's highlighted HTML in place of its plain one, once its languages are loaded. */
  const highlightLater = (node: HTMLElement, chunk: MarkdownChunk) => {
    const loads = [...chunk.missingLanguages].map((language) => loadLanguage(language));
    // A language that fails to load leaves its code plain: a missing highlighter must not hide the code.
    void Promise.allSettled(loads).then(() =>
      highlighter.add(() => {
        if (!element.contains(node)) return;
        node.replaceChildren(sanitizeMarkdownHtml(renderer.highlightChunk(chunk), loadImage));
        nameCopyButtons(element);
        typesetMath(node, afterMathLoaded);
      }),
    );
  };

  const mountChunk = (chunk: MarkdownChunk) => {
    const node = h('div', { class: 'markdown-chunk' });
    node.append(sanitizeMarkdownHtml(chunk.html, loadImage));
    element.insertBefore(node, live);
    if (chunk.deferred !== undefined || chunk.missingLanguages.size > 0) highlightLater(node, chunk);
  };

  const apply = (step: MarkdownStep) => {
    if (step.reset) for (const old of element.querySelectorAll(':scope > .markdown-chunk')) old.remove();
    for (const chunk of step.completed) mountChunk(chunk);
    live.replaceChildren(sanitizeMarkdownHtml(step.live, loadImage));
    nameCopyButtons(element);
    typesetMath(element, afterMathLoaded);
  };

  /** Renders the latest text, one step per frame while a burst is waiting. */
  let stepQueued = false;
  const step = () => {
    if (lastText === undefined) return;
    const result = finished ? renderer.finish(lastText) : renderer.update(lastText);
    apply(result);
    afterStep();
    if (result.pending && !stepQueued) {
      stepQueued = true;
      requestAnimationFrame(() => {
        stepQueued = false;
        step();
      });
    }
  };

  return {
    element,
    update: (text) => {
      if (finished || text === lastText) return;
      lastText = text;
      if (!stepQueued) step();
    },
    finish: (text) => {
      if (finished) return;
      finished = true;
      lastText = text;
      if (!stepQueued) step();
    },
  };
}
