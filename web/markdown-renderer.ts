/**
 * Markdown answers to HTML, with markdown-it (CommonMark plus GFM tables and strikethrough). What it
 * guarantees, before the browser's DOMPurify pass (`markdown-view.ts`) checks it again:
 * - raw HTML in the text is never markup: `html: false` turns it into text;
 * - links open in a new tab with `rel="noopener noreferrer"`; only `http:`, `https:`, `mailto:`, a
 *   fragment or a path on this server are links; `javascript:`, `data:` and every other scheme stay text;
 * - only the server's own images (`/api/images/<id>`) become `<img>`, marked for the view to load with
 *   the token; any other image URL becomes a link (or text when it is not a link either);
 * - no style attribute (the page's policy would refuse it): table alignment is a class;
 * - a fenced code block is escaped text in `<pre><code>`, highlighted once its language is loaded, with a
 *   Copy button; its language name is reduced to a safe class name and shown as text. An unclosed fence
 *   runs to the end of the text, as CommonMark says, so a streaming answer renders at every step. The
 *   Copy button is named after its block ("Copy TypeScript code", "Copy code" when the language is
 *   unknown); the words after "Copy" are visually hidden;
 * - TeX math becomes placeholders holding its source as text (`markdown-math.ts`), typeset by the page;
 * - GFM task lists become disabled, labelled checkboxes (`markdown-task-lists.ts`).
 * Pure (no DOM), so the XSS cases are unit-tested without a browser.
 */
import MarkdownIt from 'markdown-it';
import {
  escapeHtml,
  highlightCode,
  isLanguageLoaded,
  languageDisplayName,
  languageFor,
} from './highlight-languages.ts';
import { markdownMath } from './markdown-math.ts';
import { markdownTaskLists } from './markdown-task-lists.ts';

/** What one render found and what it wants: languages that are offered but not loaded yet. */
export interface MarkdownRenderEnvironment {
  /** markdown-it keeps link reference definitions here, so later blocks can use earlier ones. */
  [key: PropertyKey]: unknown;
  /** Set: code blocks are shown plain (cheap while a block is still streaming). */
  plainCode?: boolean;
  /** Filled by the render: languages a code block used that still need loading. */
  missingLanguages?: Set<string>;
}

const SERVER_IMAGE_PATTERN = /^\/api\/images\/[A-Za-z0-9_-]+$/;
const SAFE_LINK_PATTERN = /^(?:https?:\/\/|mailto:|#|\/(?!\/))/i;

/** True for a URL that may be a link target: http(s), mailto, a fragment, or a path on this server. */
export function isSafeLink(url: string): boolean {
  // Browsers drop tabs and newlines inside a URL, so `java\tscript:` must be judged without them.
  const compact = url.replace(/[\s\p{Cc}]/gu, '');
  return SAFE_LINK_PATTERN.test(compact) && !/^\/\\/.test(compact);
}

export function isServerImage(url: string): boolean {
  return SERVER_IMAGE_PATTERN.test(url);
}

/** A language name as a CSS class suffix: letters, digits and `+#_.-` only. */
function classSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9+#_.-]/g, '').slice(0, 40);
}

function createMarkdownIt() {
  const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false });
  // Images are decided by the image rule below; links by isSafeLink.
  md.validateLink = (url) => isSafeLink(url) || isServerImage(url);
  const rules = md.renderer.rules;

  rules.link_open = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    const href = String(token.attrGet('href') ?? '');
    if (!href.startsWith('#')) {
      token.attrSet('target', '_blank');
      token.attrSet('rel', 'noopener noreferrer');
    }
    return self.renderToken(tokens, index, options);
  };

  rules.image = (tokens, index, _options, _env, self) => {
    const token = tokens[index]!;
    const source = String(token.attrGet('src') ?? '');
    const alt = self.renderInlineAsText(token.children ?? [], _options, _env);
    if (isServerImage(source)) {
      return `<img class="markdown-image" alt="${escapeHtml(alt)}" data-server-image="${escapeHtml(source)}">`;
    }
    const label = escapeHtml(alt || source);
    if (!isSafeLink(source)) return label;
    return `<a href="${escapeHtml(source)}" target="_blank" rel="noopener noreferrer">${label}</a>`;
  };

  rules.fence = (tokens, index, _options, environment) => {
    const env = (environment ?? {}) as MarkdownRenderEnvironment;
    const token = tokens[index]!;
    const fenceName = token.info.trim().split(/\s+/)[0] ?? '';
    const language = languageFor(fenceName);
    if (language && !isLanguageLoaded(language)) env.missingLanguages?.add(language);
    const body = env.plainCode ? escapeHtml(token.content) : highlightCode(token.content, language);
    const languageClass = language ? ` language-${classSafe(language)}` : '';
    const caption = fenceName
      ? `<span class="code-language">${escapeHtml(fenceName.slice(0, 40))}</span>`
      : '';
    const displayName = languageDisplayName(fenceName);
    const copyButton =
      `<button type="button" class="copy-code"><span class="copy-code-action">Copy</span>` +
      `<span class="visually-hidden"> ${displayName ? `${escapeHtml(displayName)} ` : ''}code</span></button>`;
    return (
      `<div class="markdown-code">` +
      `<div class="markdown-code-bar">${caption}${copyButton}</div>` +
      `<pre><code class="hljs${languageClass}">${body}</code></pre></div>\n`
    );
  };

  // The page's CSP forbids style attributes: a column's alignment becomes a class.
  const alignedCell: NonNullable<typeof rules.td_open> = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    const alignment = /^text-align:(left|right|center)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (token.attrs) token.attrs = token.attrs.filter(([name]) => name !== 'style');
    if (alignment) token.attrSet('class', `align-${alignment}`);
    return self.renderToken(tokens, index, options);
  };
  rules.th_open = alignedCell;
  rules.td_open = alignedCell;
  rules.table_open = () => '<div class="markdown-table"><table>\n';
  rules.table_close = () => '</table></div>\n';
  md.use(markdownMath);
  md.use(markdownTaskLists);
  return md;
}

export const markdown = createMarkdownIt();

/** The whole text as HTML (the view renders block by block with the same instance). */
export function renderMarkdown(text: string, env: MarkdownRenderEnvironment = {}): string {
  return markdown.render(text, env);
}
