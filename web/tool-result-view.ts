/**
 * Readable renderings of tool results inside a tool card, chosen by the `resultView` trait the tool
 * declares (never by its name): `file_content` as the file's text with its range, `search_matches` as
 * matches grouped by file, `command_output` as stdout/stderr blocks, and the views whose shapes the
 * contract names (`tool-result-listings.ts`: a directory table, a path list, an edit's outcome, an image
 * caption). A result whose shape does not fit its view falls back to the generic one, pretty JSON.
 * Images anywhere in any result are found here and shown by the card (data URLs, or same-origin URLs
 * fetched with the bearer token — never another host).
 */
import type { ShellTermination } from '../src/contracts/shell-termination.ts';
import type { ToolResultView } from './api-client.ts';
import { type Child, h } from './dom.ts';
import {
  imageResultLines,
  readDirectoryListing,
  readFileEditResult,
  readPathList,
  renderDirectoryListing,
  renderFileEditResult,
  renderImageResultLines,
  renderPathList,
} from './tool-result-listings.ts';

/** Turns an image reference into something an `<img>` can show without leaving the server. */
export type ImageLoader = (url: string) => Promise<string>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function prettyJson(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Pretty-prints an argument JSON text when it parses; returns it unchanged while it is still streaming. */
export function formatArguments(text: string): string {
  if (text.trim() === '') return '{}';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * The result's body in its tool's view, or the generic one when the result does not have the view's
 * shape. Images are not part of it: the card shows them once, above (`renderResultImages`), so the
 * generic view shows the rest of such a result with long strings (base64) cut.
 */
export function renderToolResult(view: ToolResultView, result: unknown): Child {
  if (view === 'file_content' && isRecord(result) && typeof result.content === 'string')
    return renderReadFile(result);
  if (view === 'search_matches' && isRecord(result) && Array.isArray(result.matches))
    return renderGrep(result);
  if (view === 'command_output' && isRecord(result) && ('stdout' in result || 'stderr' in result))
    return renderShell(result);
  const structured = renderStructured(view, result);
  if (structured) return structured;
  return renderJson(findImages(result).length > 0 ? stripLargeStrings(result) : result);
}

function renderStructured(view: ToolResultView, result: unknown): HTMLElement | undefined {
  switch (view) {
    case 'directory_listing': {
      const listing = readDirectoryListing(result);
      return listing && renderDirectoryListing(listing);
    }
    case 'path_list': {
      const list = readPathList(result);
      return list && renderPathList(list);
    }
    case 'file_edit': {
      const edit = readFileEditResult(result);
      return edit && renderFileEditResult(edit);
    }
    case 'images': {
      const lines = imageResultLines(result);
      return lines && renderImageResultLines(lines);
    }
    default:
      return undefined;
  }
}

/** The images anywhere in a result, as a gallery; null when it has none. */
export function renderResultImages(result: unknown, loadImage: ImageLoader): HTMLElement | null {
  const images = findImages(result);
  return images.length > 0 ? renderImages(images, loadImage) : null;
}

function renderJson(value: unknown): HTMLElement {
  return h('pre', { class: 'code-block' }, prettyJson(value));
}

function renderReadFile(result: Record<string, unknown>): HTMLElement {
  const facts: string[] = [];
  if (typeof result.startLine === 'number' && typeof result.endLine === 'number') {
    facts.push(
      `lines ${result.startLine}–${result.endLine}${typeof result.totalLines === 'number' ? ` of ${result.totalLines}` : ''}`,
    );
  }
  if (typeof result.size === 'number') facts.push(`${result.size} bytes`);
  if (typeof result.view === 'string') facts.push(`${result.view} view`);
  if (result.truncated === true) facts.push('truncated');
  return h(
    'div',
    { class: 'result-read-file' },
    h(
      'p',
      { class: 'result-caption' },
      h('code', {}, String(result.path ?? '')),
      facts.length > 0 ? ` — ${facts.join(', ')}` : '',
    ),
    h('pre', { class: 'code-block file-content' }, String(result.content)),
  );
}

function renderGrep(result: Record<string, unknown>): HTMLElement {
  const byFile = new Map<string, { line: unknown; text: unknown }[]>();
  for (const match of result.matches as unknown[]) {
    if (!isRecord(match)) continue;
    const file = String(match.file ?? '');
    const list = byFile.get(file) ?? [];
    list.push({ line: match.line, text: match.text });
    byFile.set(file, list);
  }
  const total = (result.matches as unknown[]).length;
  return h(
    'div',
    { class: 'result-grep' },
    h(
      'p',
      { class: 'result-caption' },
      `${total} match${total === 1 ? '' : 'es'} in ${byFile.size} file${byFile.size === 1 ? '' : 's'}`,
      result.truncated === true ? ' (truncated)' : '',
    ),
    [...byFile].map(([file, matches]) =>
      h(
        'div',
        { class: 'grep-file' },
        h('p', { class: 'grep-file-name' }, h('code', {}, file)),
        h(
          'pre',
          { class: 'code-block' },
          matches.map((match) =>
            h(
              'span',
              { class: 'grep-line' },
              h('span', { class: 'line-number' }, `${String(match.line)}:`),
              ` ${String(match.text)}\n`,
            ),
          ),
        ),
      ),
    ),
  );
}

/** A byte count as the card says it: `2 GiB`, `512 MiB`, else bytes. */
function byteText(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** How the command ended, as the card's caption says it; undefined for a plain exit. */
function terminationText(termination: unknown): string | undefined {
  if (!isRecord(termination) || typeof termination.kind !== 'string') return undefined;
  const kind = termination.kind as ShellTermination['kind'];
  const signal = typeof termination.signal === 'string' ? termination.signal : undefined;
  switch (kind) {
    case 'exited':
      return undefined;
    case 'memory':
      return typeof termination.limitBytes === 'number'
        ? `killed: the user's memory share (${byteText(termination.limitBytes)}) ran out`
        : "killed: the user's memory share ran out";
    case 'signalled':
      return `killed by ${signal ?? 'a signal'}`;
    case 'timed_out':
      return 'timed out';
    case 'aborted':
      return 'cancelled';
    default:
      return kind;
  }
}

/** The facts of a shell result's caption: exit code, how it ended, whether output was cut. */
export function shellFacts(result: Record<string, unknown>): string[] {
  const facts: string[] = [];
  if (result.exitCode !== undefined && result.exitCode !== null)
    facts.push(`exit code ${String(result.exitCode)}`);
  const ended = terminationText(result.termination);
  if (ended) facts.push(ended);
  if (result.truncated === true) facts.push('output truncated');
  return facts;
}

function renderShell(result: Record<string, unknown>): HTMLElement {
  const facts = shellFacts(result);
  const block = (label: string, text: unknown) =>
    typeof text === 'string' && text !== ''
      ? h(
          'div',
          { class: 'shell-stream' },
          h('p', { class: 'result-caption' }, label),
          h('pre', { class: 'code-block' }, text),
        )
      : null;
  return h(
    'div',
    { class: 'result-shell' },
    facts.length > 0 ? h('p', { class: 'result-caption' }, facts.join(', ')) : null,
    block('stdout', result.stdout),
    block('stderr', result.stderr),
    result.stdout === '' && result.stderr === '' ? h('p', { class: 'result-caption' }, '(no output)') : null,
  );
}

interface ImageReference {
  source: string;
  alt: string;
}

/** Finds images anywhere in a result: data URLs, `{base64|b64_json|data, mimeType}`, or same-origin URLs. */
export function findImages(value: unknown, depth = 0, inheritedAlt = 'Generated image'): ImageReference[] {
  if (depth > 5) return [];
  if (Array.isArray(value)) return value.flatMap((item) => findImages(item, depth + 1, inheritedAlt));
  if (!isRecord(value)) return [];
  const own = value.revisedPrompt ?? value.prompt ?? value.alt;
  const alt = typeof own === 'string' && own !== '' ? own : inheritedAlt;
  const mimeType = String(value.mimeType ?? value.mediaType ?? 'image/png');
  for (const key of ['dataUrl', 'url', 'src', 'href']) {
    const candidate = value[key];
    if (typeof candidate === 'string' && isShowableImageUrl(candidate)) return [{ source: candidate, alt }];
  }
  for (const key of ['base64', 'b64_json', 'data', 'imageBase64']) {
    const candidate = value[key];
    if (
      typeof candidate === 'string' &&
      candidate.length > 32 &&
      /^[A-Za-z0-9+/=\s]+$/.test(candidate.slice(0, 200)) &&
      mimeType.startsWith('image/')
    ) {
      return [{ source: `data:${mimeType};base64,${candidate.replace(/\s/g, '')}`, alt }];
    }
  }
  return Object.values(value).flatMap((item) => findImages(item, depth + 1, alt));
}

const SAME_ORIGIN_PROBE = 'http://same-origin.invalid';

/**
 * data: image URLs and same-origin paths only: the page never requests another host (the loader sends
 * the bearer token). Decided by the WHATWG URL parser itself, which reads `/\\host` and `/<tab>/host`
 * as another host.
 */
function isShowableImageUrl(url: string): boolean {
  if (url.startsWith('data:image/')) return true;
  if (!url.startsWith('/')) return false;
  try {
    return new URL(url, SAME_ORIGIN_PROBE).origin === SAME_ORIGIN_PROBE;
  } catch {
    return false;
  }
}

/**
 * The pictures of a result. A server image is fetched after the current task, unless by then the
 * figure was marked `replaced` (a re-drawn card keeps its old, loaded figure: `tool-call-nodes.ts`).
 */
function renderImages(images: ImageReference[], loadImage: ImageLoader): HTMLElement {
  return h(
    'div',
    { class: 'result-images' },
    images.map((image) => {
      const element = h('img', { alt: image.alt, loading: 'lazy' });
      if (image.source.startsWith('data:')) element.src = image.source;
      // The source names the figure for an answer that refers to it (`answer-images.ts`); data URLs never do.
      const named = image.source.startsWith('data:') ? undefined : image.source;
      const figure = h('figure', { 'data-image-source': named }, element, h('figcaption', {}, image.alt));
      if (named !== undefined)
        queueMicrotask(() => {
          if (figure.dataset.replaced === 'true') return;
          loadImage(named).then(
            (objectUrl) => {
              element.src = objectUrl;
            },
            () => {
              element.alt = `${image.alt} (could not be loaded)`;
            },
          );
        });
      return figure;
    }),
  );
}

/** Replaces long base64 strings with a placeholder so the JSON view stays readable. */
function stripLargeStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length > 500 ? `… ${value.length} characters …` : value;
  if (Array.isArray(value)) return value.map(stripLargeStrings);
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripLargeStrings(item)]));
  return value;
}
