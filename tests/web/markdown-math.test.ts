/**
 * Math in markdown: which dollars open math (currency does not), the four delimiters, display blocks,
 * and a display block that is still streaming, which stays one steady block of source until it closes.
 */
import { describe, expect, test } from 'bun:test';
import { renderMarkdown } from '../../web/markdown-renderer.ts';
import { IncrementalMarkdown } from '../../web/markdown-stream.ts';

const inline = (tex: string) => `<span class="math math-inline">${tex}</span>`;
const inlineDisplay = (tex: string) => `<span class="math math-display">${tex}</span>`;
const block = (tex: string) => `<div class="math math-display">${tex}</div>\n`;
const openBlock = (tex: string) => `<div class="math math-display math-open">${tex}</div>\n`;

describe('dollars: math or money', () => {
  test.each([
    ['two prices', 'It costs $5 and $10.', '<p>It costs $5 and $10.</p>\n'],
    ['a price and a range', 'From $5 to $10 per month', '<p>From $5 to $10 per month</p>\n'],
    ['a price then math', 'Pay $5, where $x$ is the tax', `<p>Pay $5, where ${inline('x')} is the tax</p>\n`],
    ['a space after the opening dollar', 'a $ x$ b', '<p>a $ x$ b</p>\n'],
    ['a space before the closing dollar', 'a $x $ b', '<p>a $x $ b</p>\n'],
    ['a digit after the closing dollar', '$x$5', '<p>$x$5</p>\n'],
    ['escaped dollars', '\\$x\\$', '<p>$x$</p>\n'],
    ['an escaped dollar inside math', '$a\\$b$', `<p>${inline('a\\$b')}</p>\n`],
    ['an empty pair', 'a $$ and $', '<p>a $$ and $</p>\n'],
    ['double dollars closing nothing', 'price: $$5', '<p>price: $$5</p>\n'],
    ['dollars in code', '`$x$`', '<p><code>$x$</code></p>\n'],
  ])('%s', (_name, input, expected) => {
    expect(renderMarkdown(input)).toBe(expected);
  });
});

describe('delimiters', () => {
  test.each([
    ['$…$', 'Euler: $e^{i\\pi}+1=0$.', `<p>Euler: ${inline('e^{i\\pi}+1=0')}.</p>\n`],
    ['\\(…\\)', 'then \\(a+b\\) holds', `<p>then ${inline('a+b')} holds</p>\n`],
    [
      '$$…$$ in a line of text',
      'sum $$\\sum_i x_i$$ here',
      `<p>sum ${inlineDisplay('\\sum_i x_i')} here</p>\n`,
    ],
    ['\\[…\\] in a line of text', 'so \\[x^2\\] is', `<p>so ${inlineDisplay('x^2')} is</p>\n`],
    [
      'TeX special characters are escaped text',
      '$a<b \\& c>d$',
      `<p>${inline('a&lt;b \\&amp; c&gt;d')}</p>\n`,
    ],
    ['math inside emphasis and a table cell', '*see $x$*', `<p><em>see ${inline('x')}</em></p>\n`],
  ])('%s', (_name, input, expected) => {
    expect(renderMarkdown(input)).toBe(expected);
  });

  test('math in a table cell', () => {
    expect(renderMarkdown('| f | value |\n|---|---|\n| $x^2$ | 4 |')).toContain(`<td>${inline('x^2')}</td>`);
  });
});

describe('display blocks', () => {
  test.each([
    ['on their own lines', '$$\nx^2\n+ 1\n$$\n\nAfter.', `${block('x^2\n+ 1')}<p>After.</p>\n`],
    ['on one line', '$$x^2$$', block('x^2')],
    ['opening and closing on content lines', '$$x =\n1$$', block('x =\n1')],
    ['with brackets', '\\[\n\\int_0^1 f\n\\]', block('\\int_0^1 f')],
    ['interrupting a paragraph', 'So:\n$$\ny\n$$', `<p>So:</p>\n${block('y')}`],
    ['inside a list item', '- a\n\n  $$\n  b\n  $$', `<ul>\n<li>\n<p>a</p>\n${block('b')}</li>\n</ul>\n`],
    ['followed by text on the line: inline math', '$$x$$ is big', `<p>${inlineDisplay('x')} is big</p>\n`],
    ['four spaces in: code, not math', '    $$\n    x\n    $$', '<pre><code>$$\nx\n$$\n</code></pre>\n'],
  ])('%s', (_name, input, expected) => {
    expect(renderMarkdown(input)).toBe(expected);
  });

  test('a block not closed yet runs to the end of the text, or to a blank line, marked open', () => {
    expect(renderMarkdown('$$\n\\frac{a}{')).toBe(openBlock('\\frac{a}{'));
    expect(renderMarkdown('$$\na\n\nb')).toBe(`${openBlock('a')}<p>b</p>\n`);
  });
});

describe('streaming', () => {
  const ANSWER =
    'The roots:\n\n$$\nx = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}\n$$\n\nfor $a \\ne 0$, costing $5 or $6.';

  test('at every prefix, the display block is one block (open while unclosed), never paragraph text', () => {
    const renderer = new IncrementalMarkdown();
    const start = ANSWER.indexOf('$$');
    const end = ANSWER.indexOf('\n\nfor');
    const shown: string[] = [];
    for (let length = start + 2; length <= end; length += 1) {
      const step = renderer.update(ANSWER.slice(0, length));
      shown.push(step.live);
    }
    for (const live of shown)
      expect(live).toMatch(/^<div class="math math-display(?: math-open)?">[^<]*<\/div>\n$/);
    expect(shown.at(-1)).toBe(block('x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}'));
    expect(shown.filter((live) => !live.includes('math-open'))).toEqual([shown.at(-1)!]);
  });

  test('streamed one character at a time, it renders what one render of the whole gives', () => {
    const renderer = new IncrementalMarkdown();
    const html: string[] = [];
    for (let length = 1; length <= ANSWER.length; length += 1)
      html.push(...renderer.update(ANSWER.slice(0, length)).completed.map((chunk) => chunk.html));
    html.push(...renderer.finish(ANSWER).completed.map((chunk) => chunk.html));
    expect(html.join('')).toBe(renderMarkdown(ANSWER));
    expect(renderMarkdown(ANSWER)).toBe(
      `<p>The roots:</p>\n${block('x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}')}` +
        `<p>for ${inline('a \\ne 0')}, costing $5 or $6.</p>\n`,
    );
  });
});
