/**
 * TeX to MathML with KaTeX, in a chunk of its own: the page imports this module the first time an
 * answer holds math (`math-typesetter.ts`), so KaTeX is not part of the first load.
 *
 * MathML only (`output: 'mathml'`): KaTeX's HTML output positions every glyph with inline styles, which
 * the page's `style-src 'self'` policy refuses; the browser lays MathML out itself. `trust: false`
 * refuses `\href`, `\url`, `\includegraphics` and the `\html…` commands (they render as their name in
 * the error colour); the two style attributes KaTeX's MathML can carry are dropped; `maxExpand` and `maxSize` bound what a hostile macro or rule can cost. Invalid TeX
 * is an error value, never a thrown exception.
 */
import katex from 'katex';

export type TexToMathMlResult = { mathml: string } | { error: string };

export function texToMathMl(tex: string, display: boolean): TexToMathMlResult {
  try {
    const markup = katex.renderToString(tex, {
      output: 'mathml',
      displayMode: display,
      throwOnError: true,
      trust: false,
      strict: 'ignore',
      maxExpand: 1000,
      maxSize: 50,
    });
    // `\pmb` and `\fcolorbox` get a style attribute, which the policy refuses even while DOMPurify only
    // parses the markup (a violation report each time): dropped here, they never reach a parser. KaTeX
    // escapes `"` in every value and text, so ` style="` can only be the attribute.
    return { mathml: markup.replace(/ style="[^"]*"/g, '') };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
