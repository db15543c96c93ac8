/**
 * Typesets the math placeholders the markdown renderer writes (`markdown-math.ts`): each `.math` element
 * holds its TeX source as text and becomes KaTeX's MathML, checked by DOMPurify against the MathML
 * KaTeX writes and nothing more (no style, no link, no image: `trust` is off and the policy refuses
 * inline styles). KaTeX and its stylesheet (`/katex.css`, whose fonts are served beside it by this
 * server) are fetched the first time a page holds math, not before; until they are, and whenever the
 * TeX is invalid, the source stays as text (invalid TeX gets the `math-error` class and the message as
 * its title). A block still open (`math-open`) is left as source.
 */
import DOMPurify from 'dompurify';
import { h } from './dom.ts';
import type { TexToMathMlResult } from './tex-to-mathml.ts';

/** The stylesheet of KaTeX's fonts, built from the katex package (`src/web/katex-assets.ts`). */
export const KATEX_STYLESHEET = '/katex.css';

/** The MathML elements KaTeX writes with `trust` off (`mglyph` needs `\includegraphics`, so it is out). */
export const MATHML_TAGS = (
  'math semantics annotation mrow mi mn mo mtext mspace msup msub msubsup mfrac mroot msqrt ' +
  'mover munder munderover mtable mtr mtd mstyle mpadded mphantom menclose'
).split(' ');
/** Their attributes: layout values, never a URL (`href`, `src`) or a style. */
export const MATHML_ATTRIBUTES = (
  'accent accentunder columnalign columnlines columnspacing depth display displaystyle encoding fence ' +
  'height largeop linebreak linethickness lspace mathbackground mathcolor mathsize mathvariant maxsize ' +
  'minsize notation rowlines rowspacing rspace scriptlevel separator stretchy voffset width'
).split(' ');

/** KaTeX's MathML: its wrapper span (with class) and the allow-listed MathML, as nodes. */
export function sanitizeMathMl(markup: string): DocumentFragment {
  return DOMPurify.sanitize(markup, {
    ALLOWED_TAGS: ['span', ...MATHML_TAGS],
    ALLOWED_ATTR: ['class', ...MATHML_ATTRIBUTES],
    // None of these is a URL: DOMPurify would otherwise check their values as one.
    ADD_URI_SAFE_ATTR: MATHML_ATTRIBUTES,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}

type Typeset = (tex: string, display: boolean) => TexToMathMlResult;
let typeset: Typeset | undefined;
/** True while the chunk is being fetched, so a formula streamed meanwhile does not fetch it again. */
let loading = false;
let stylesheetAdded = false;
/** Who asked while KaTeX was loading, each once (a stream asks on every frame). */
const waiting = new Set<() => void>();

function loadTypesetter(): void {
  if (!stylesheetAdded) {
    document.head.append(h('link', { rel: 'stylesheet', href: KATEX_STYLESHEET }));
    stylesheetAdded = true;
  }
  if (loading) return;
  loading = true;
  import('./tex-to-mathml.ts').then(
    (module) => {
      loading = false;
      typeset = module.texToMathMl;
      const callbacks = [...waiting];
      waiting.clear();
      for (const callback of callbacks) callback();
    },
    () => {
      // KaTeX could not be fetched (offline for a moment): the TeX source stays readable, and the next
      // formula tries again; whoever waited is called back when one succeeds.
      loading = false;
    },
  );
}

const PENDING_SELECTOR = '.math:not(.math-open):not(.math-typeset):not(.math-error)';

function typesetElement(element: Element, render: Typeset): void {
  const tex = element.textContent ?? '';
  const result = render(tex, element.classList.contains('math-display'));
  if ('error' in result) {
    element.classList.add('math-error');
    element.setAttribute('title', result.error);
    return;
  }
  element.replaceChildren(sanitizeMathMl(result.mathml));
  element.classList.add('math-typeset');
}

/**
 * Typesets the math under `root`. When KaTeX is not loaded yet it starts loading and returns at once;
 * `whenLoaded` runs once it is (then call this again on whatever holds math by then). A failed load
 * leaves the source showing.
 */
export function typesetMath(root: ParentNode, whenLoaded: () => void): void {
  const pending = root.querySelectorAll(PENDING_SELECTOR);
  if (pending.length === 0) return;
  if (typeset) {
    for (const element of pending) typesetElement(element, typeset);
    return;
  }
  waiting.add(whenLoaded);
  loadTypesetter();
}
