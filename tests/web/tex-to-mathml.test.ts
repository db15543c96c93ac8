/**
 * KaTeX's MathML for the page: valid TeX becomes MathML only (no HTML layout, no style attribute),
 * invalid TeX an error value, and the commands that could reach outside the formula (`\href`, `\url`,
 * `\includegraphics`, `\html…`) are refused. The page's MathML allow-list is exactly what KaTeX writes.
 */
import { expect, test } from 'bun:test';
import { MATHML_ATTRIBUTES, MATHML_TAGS } from '../../web/math-typesetter.ts';
import { texToMathMl } from '../../web/tex-to-mathml.ts';

function mathml(tex: string, display = false): string {
  const result = texToMathMl(tex, display);
  if ('error' in result) throw new Error(`expected MathML for ${tex}, got: ${result.error}`);
  return result.mathml;
}
const tagsOf = (markup: string) =>
  new Set([...markup.matchAll(/<([a-z][a-z0-9-]*)/g)].map((match) => match[1]!));
const attributesOf = (markup: string) =>
  new Set([...markup.matchAll(/\s([a-z][a-z-]*)="/g)].map((match) => match[1]!));

test('valid TeX is MathML in a katex span, with its source as annotation', () => {
  expect(mathml('x^2')).toBe(
    '<span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msup><mi>x</mi><mn>2</mn>' +
      '</msup></mrow><annotation encoding="application/x-tex">x^2</annotation></semantics></math></span>',
  );
  expect(mathml('\\frac{a}{b}', true)).toContain(
    '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">',
  );
});

test('invalid TeX is an error value with KaTeX’s message, never an exception', () => {
  expect(texToMathMl('\\frac{a}{', false)).toEqual({
    error:
      "KaTeX parse error: Unexpected end of input in a macro argument, expected '}' at end of input: \\frac{a}{",
  });
  expect(texToMathMl('\\undefinedmacro', false)).toEqual({
    error: 'KaTeX parse error: Undefined control sequence: \\undefinedmacro at position 1: \\̲u̲n̲d̲e̲f̲i̲n̲e̲d̲m̲a̲c̲r̲o̲',
  });
});

test.each([
  ['\\href{javascript:alert(1)}{x}', '\\href'],
  ['\\url{javascript:alert(1)}', '\\url'],
  ['\\includegraphics{/api/images/x}', '\\includegraphics'],
  ['\\htmlClass{copy-code}{x}', '\\htmlClass'],
  ['\\htmlId{app}{x}', '\\htmlId'],
  ['\\htmlStyle{color:red}{x}', '\\htmlStyle'],
  ['\\htmlData{a=b}{x}', '\\htmlData'],
])('%s is refused: its name in the error colour, no link, class, id, style or data', (tex, command) => {
  const markup = mathml(tex);
  expect(markup).toContain(`<mstyle mathcolor="#cc0000"><mtext>${command}</mtext></mstyle>`);
  expect([...attributesOf(markup)].sort()).toEqual(['class', 'encoding', 'mathcolor', 'xmlns']);
  expect(markup).not.toMatch(/href=|src=|style=|id=|data-/);
});

test('no style attribute, even where KaTeX writes one (the policy refuses it)', () => {
  expect(mathml('\\pmb{w}')).toContain('<mstyle><mi>w</mi></mstyle>');
  expect(mathml('\\fcolorbox{red}{yellow}{z}')).toContain(
    '<mpadded width="+6pt" height="+6pt" lspace="3pt" voffset="3pt" mathbackground="yellow">',
  );
});

test('a macro bomb stops at the expansion limit', () => {
  const result = texToMathMl('\\def\\a{\\a\\a}\\a', false);
  expect(result).toEqual({
    error: 'KaTeX parse error: Too many expansions: infinite loop or need to increase maxExpand setting',
  });
});

/** TeX that makes KaTeX write each MathML element and attribute of the allow-list. */
const CORPUS = [
  'x^2_i + y_j + z^3 + 42 + \\text{word} + a\\,b + \\frac{1}{2} + \\sqrt{x} + \\sqrt[3]{y}',
  '\\hat{x} + \\underbrace{ab}_{c} + \\overbrace{ab} + \\sum_{i=0}^{n} + \\lim_{n} + \\overset{!}{=} + \\underline{u}',
  '\\begin{pmatrix}a & b\\\\ c & d\\end{pmatrix} \\begin{array}{c|c} a & b \\\\ \\hline c & d \\end{array}',
  '\\left( \\frac{a}{b} \\right) \\big( x \\big) \\displaystyle\\int \\scriptstyle s \\mathbf{B} \\cal{C}',
  '\\color{blue}{x} \\colorbox{yellow}{y} \\cancel{z} \\phantom{w} \\vcenter{v} \\rule{1em}{2em} \\xrightarrow{f}',
  'x = y \\\\ \\Huge h \\genfrac{}{}{2pt}{}{a}{b} \\binom{n}{k} a \\mathrel{\\smash{=}} b',
  '\\smallint f \\operatorname{sin} x \\mathop{op} \\mathpunct{,} \\stackrel{a}{b} \\nonumber a \\newline b \\llap{l}',
];

test('the MathML allow-list is exactly the elements and attributes KaTeX writes', () => {
  const tags = new Set<string>();
  const attributes = new Set<string>();
  const cases = [
    ...CORPUS.flatMap((tex) => [[tex, false] as const, [tex, true] as const]),
    ['\\tag{1} x', true] as const,
  ];
  for (const [tex, display] of cases) {
    const result = texToMathMl(tex, display);
    if ('error' in result) throw new Error(`${tex}: ${result.error}`);
    for (const tag of tagsOf(result.mathml)) tags.add(tag);
    for (const attribute of attributesOf(result.mathml)) attributes.add(attribute);
  }
  tags.delete('span');
  attributes.delete('class');
  // DOMPurify drops xmlns: the HTML parser gives <math> its namespace.
  attributes.delete('xmlns');
  expect([...tags].sort()).toEqual([...MATHML_TAGS].sort());
  expect([...attributes].sort()).toEqual([...MATHML_ATTRIBUTES].sort());
});
