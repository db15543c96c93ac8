/**
 * The MathML allow-list in real Chromium (DOMPurify needs a real DOM and parser): markup that KaTeX would
 * never write with trust off — scripts and HTML smuggled into MathML, links, images, styles, event
 * handlers, `maction`, `annotation-xml`, `mglyph` — is cut, while KaTeX's own MathML passes unchanged.
 * The module is bundled on its own and run in a blank page, so the payloads reach the sanitizer directly,
 * as if KaTeX had a bug. Run by `npm run test:e2e`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../helpers/web-browser.ts';

const WEB = path.resolve(import.meta.dir, '..', '..', 'web');
let directory: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mango-mathml-sanitizer-'));
  const entry = path.join(directory, 'entry.ts');
  await writeFile(
    entry,
    [
      `import { sanitizeMathMl } from ${JSON.stringify(path.join(WEB, 'math-typesetter.ts'))};`,
      `import { texToMathMl } from ${JSON.stringify(path.join(WEB, 'tex-to-mathml.ts'))};`,
      'const html = (markup: string) => {',
      "  const holder = document.createElement('div');",
      '  holder.append(sanitizeMathMl(markup));',
      '  return holder.innerHTML;',
      '};',
      'Object.assign(window, { sanitized: html, typeset: (tex: string) => {',
      '  const result = texToMathMl(tex, false);',
      "  return 'mathml' in result ? { katex: result.mathml, sanitized: html(result.mathml) } : result;",
      '} });',
    ].join('\n'),
  );
  const built = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'iife' });
  if (!built.success) throw new Error(built.logs.map(String).join('\n'));
  const script = await built.outputs[0]!.text();
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  page = await browser.newPage();
  await page.setContent('<!doctype html><title>sanitizer</title>');
  await page.addScriptTag({ content: script });
}, 45_000);

afterAll(async () => {
  await browser?.close();
  await rm(directory, { recursive: true, force: true });
});

const sanitized = (markup: string) =>
  page.evaluate((input) => (window as unknown as { sanitized(m: string): string }).sanitized(input), markup);

const MATH = '<math xmlns="http://www.w3.org/1998/Math/MathML">';

describe('the MathML sanitizer', () => {
  test.each([
    [
      'a script inside mtext',
      `${MATH}<mtext><script>alert(1)</script>a</mtext></math>`,
      '<math><mtext>a</mtext></math>',
    ],
    [
      'an HTML image in mtext (an HTML integration point)',
      `${MATH}<mtext><img src=x onerror=alert(1)></mtext></math>`,
      '<math><mtext></mtext></math>',
    ],
    [
      'annotation-xml carrying HTML',
      `${MATH}<semantics><mi>x</mi><annotation-xml encoding="text/html"><svg onload=alert(1)></svg></annotation-xml></semantics></math>`,
      '<math><semantics><mi>x</mi></semantics></math>',
    ],
    [
      'a link on a MathML element',
      `${MATH}<mrow href="javascript:alert(1)"><mi>x</mi></mrow></math>`,
      '<math><mrow><mi>x</mi></mrow></math>',
    ],
    [
      'an image through mglyph',
      `${MATH}<mglyph src="https://tracker.example/p.png" alt="x"></mglyph></math>`,
      '<math></math>',
    ],
    [
      'maction',
      `${MATH}<maction actiontype="statusline"><mi>x</mi><mtext>y</mtext></maction></math>`,
      '<math><mi>x</mi><mtext>y</mtext></math>',
    ],
    [
      'style, id, event handler and data attributes',
      `${MATH}<mi style="color:red" id="app" onclick="alert(1)" data-x="1" mathvariant="normal">x</mi></math>`,
      '<math><mi mathvariant="normal">x</mi></math>',
    ],
    [
      'an HTML element where MathML is expected',
      `${MATH}<mrow><a href="https://evil.example">x</a><iframe src="javascript:alert(1)"></iframe></mrow></math>`,
      '<math><mrow>x</mrow></math>',
    ],
    [
      'markup outside the katex span and math',
      '<span class="katex" onmouseover="alert(1)"><b>bold</b><math><mi>x</mi></math></span><style>*{}</style>',
      '<span class="katex">bold<math><mi>x</mi></math></span>',
    ],
  ])('%s is cut', async (_name, markup, expected) => {
    expect(await sanitized(markup)).toBe(expected);
  });

  test('KaTeX’s own MathML passes whole: only the xmlns attribute goes (the parser gives the namespace)', async () => {
    const result = await page.evaluate(() =>
      (window as unknown as { typeset(tex: string): { katex: string; sanitized: string } }).typeset(
        '\\begin{pmatrix}a & \\frac{1}{2}\\\\ \\sqrt[3]{x} & \\hat{y}_i^2\\end{pmatrix} \\color{blue}{z} \\cancel{w}',
      ),
    );
    expect(result.sanitized).toBe(result.katex.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', ''));
    expect(result.sanitized).toContain(
      '<mtable rowspacing="0.16em" columnalign="center center" columnspacing="1em">',
    );
  });

  test('a refused \\href keeps no link after both steps', async () => {
    const result = await page.evaluate(() =>
      (window as unknown as { typeset(tex: string): { sanitized: string } }).typeset(
        '\\href{javascript:alert(1)}{x}\\htmlData{onclick=alert(1)}{y}',
      ),
    );
    expect(result.sanitized).not.toMatch(/\s(?:href|onclick|data-[a-z]*)=/);
    expect(result.sanitized).toContain('<mstyle mathcolor="#cc0000"><mtext>\\href</mtext></mstyle>');
  });
});
