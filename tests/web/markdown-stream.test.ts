/**
 * Incremental rendering: streamed in pieces of any size, the chunks rendered once plus the open block
 * equal rendering the whole answer at once; a complete block is never rendered twice; an unclosed fence
 * is live code at every step.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { loadLanguage } from '../../web/highlight-languages.ts';
import { renderMarkdown } from '../../web/markdown-renderer.ts';
import { IncrementalMarkdown, type MarkdownChunk, normalizeNewlines } from '../../web/markdown-stream.ts';

const ANSWER = [
  '# Results',
  '',
  '[r]: https://example.com/ref',
  '',
  'Two files changed. See [the docs](https://example.com/docs) and [ref][r].',
  '',
  '| file | lines |',
  '|------|------:|',
  '| a.ts | 12 |',
  '| b.ts | 3 |',
  '',
  '- first',
  '- second',
  '',
  '  continued in the item',
  '- third',
  '',
  '1. one',
  '2. two',
  '',
  '> quoted',
  'lazy line',
  '',
  '```ts',
  'const total: number = 15;',
  '',
  'console.log("<" + total + ">");',
  '```',
  '',
  'Setext heading',
  '--------------',
  '',
  '    indented code',
  '',
  '***',
  '',
  'Done: `npm test` passes.',
].join('\n');

/**
 * Streams `text` in pieces of `sizes` (cycled), stepping again while a step is pending as the view does
 * on the next frame, and returns every chunk, the final HTML and each step's open block.
 */
function stream(
  text: string,
  sizes: number[],
  budget?: number,
  renderer = new IncrementalMarkdown(),
): { chunks: MarkdownChunk[]; html: string; lives: string[]; steps: number } {
  const chunks: MarkdownChunk[] = [];
  const lives: string[] = [];
  let steps = 0;
  let end = 0;
  for (let piece = 0; end < text.length; piece += 1) {
    end = Math.min(text.length, end + sizes[piece % sizes.length]!);
    for (let pending = true; pending; steps += 1) {
      const result = renderer.update(text.slice(0, end), budget);
      expect(result.reset).toBe(false);
      chunks.push(...result.completed);
      lives.push(result.live);
      pending = result.pending;
    }
  }
  for (let pending = true; pending; steps += 1) {
    const last = renderer.finish(text, budget);
    chunks.push(...last.completed);
    pending = last.pending;
  }
  return { chunks, html: chunks.map((chunk) => chunk.html).join(''), lives, steps };
}

describe('IncrementalMarkdown', () => {
  beforeAll(async () => {
    await loadLanguage('typescript');
  });

  test.each([[[1]], [[2, 7, 3]], [[13]], [[64]], [[ANSWER.length]]])(
    'streamed in pieces of %j, it renders exactly what one render of the whole gives',
    (sizes) => {
      const { chunks, html } = stream(ANSWER, sizes);
      expect(html).toBe(renderMarkdown(ANSWER));
      // Each source character belongs to exactly one chunk: nothing rendered twice, nothing dropped.
      expect(chunks.map((chunk) => chunk.source).join('')).toBe(ANSWER);
    },
  );

  test.each([[[1]], [[2, 7, 3]], [[64]], [[ANSWER.length]]])(
    'with highlighting deferred (pieces of %j): chunks with code come plain, and highlighted they are the whole render',
    (sizes) => {
      const renderer = new IncrementalMarkdown({ deferHighlighting: true });
      const { chunks } = stream(ANSWER, sizes, undefined, renderer);
      const withCode = chunks.filter((chunk) => chunk.deferred !== undefined);
      expect(withCode.length).toBeGreaterThan(0);
      for (const chunk of withCode) {
        expect(chunk.html).toContain('<div class="markdown-code">');
        expect(chunk.html).not.toContain('hljs-');
        expect(renderer.highlightChunk(chunk)).toContain('hljs-');
      }
      for (const chunk of chunks.filter((candidate) => candidate.deferred === undefined)) {
        expect(chunk.html).not.toContain('<div class="markdown-code">');
      }
      expect(chunks.map((chunk) => renderer.highlightChunk(chunk)).join('')).toBe(renderMarkdown(ANSWER));
      // Highlighting later renders each chunk as it was first rendered: same as highlighting at once.
      expect(chunks.map((chunk) => renderer.highlightChunk(chunk)).join('')).toBe(stream(ANSWER, sizes).html);
    },
  );

  test('a burst larger than the step budget is rendered over several steps, with the same result', () => {
    const long = Array.from(
      { length: 40 },
      (_, index) => `${ANSWER.replaceAll('[r]', `[r${index}]`)}\n\n`,
    ).join('');
    const whole = stream(long, [long.length], Number.POSITIVE_INFINITY);
    const bounded = stream(long, [long.length], 2048);
    expect(bounded.html).toBe(whole.html);
    expect(bounded.html).toBe(renderMarkdown(long));
    expect(whole.steps).toBe(2);
    expect(bounded.steps).toBeGreaterThan(long.length / 2048);
    // No step rendered much more than its budget (one block past it at most).
    expect(Math.max(...bounded.chunks.map((chunk) => chunk.source.length))).toBeLessThanOrEqual(2048);
  });

  test('a single block longer than the budget is still rendered, in one step', () => {
    const fence = `\`\`\`\n${'x = 1\n'.repeat(1000)}\`\`\`\n`;
    const { chunks, html } = stream(fence, [fence.length], 512);
    expect(chunks.length).toBe(1);
    expect(html).toBe(renderMarkdown(fence));
  });

  test('a block is handed out once, when the next one starts', () => {
    const renderer = new IncrementalMarkdown();
    expect(renderer.update('Hello')).toEqual({
      reset: false,
      completed: [],
      live: '<p>Hello</p>\n',
      pending: false,
    });
    expect(renderer.update('Hello world\n\n')).toEqual({
      reset: false,
      completed: [],
      live: '<p>Hello world</p>\n',
      pending: false,
    });
    const next = renderer.update('Hello world\n\n- a');
    expect(next.completed.map((chunk) => [chunk.source, chunk.html])).toEqual([
      ['Hello world\n\n', '<p>Hello world</p>\n'],
    ]);
    expect(next.live).toBe('<ul>\n<li>a</li>\n</ul>\n');
    expect(renderer.update('Hello world\n\n- a\n- b').completed).toEqual([]);
    expect(renderer.finish('Hello world\n\n- a\n- b')).toEqual({
      reset: false,
      completed: [
        { source: '- a\n- b', html: '<ul>\n<li>a</li>\n<li>b</li>\n</ul>\n', missingLanguages: new Set() },
      ],
      live: '',
      pending: false,
    });
  });

  test('an unclosed fence is a live code block at every step, plain until it is complete', () => {
    const text = 'Code:\n\n```ts\nconst a = "<b>";\nlet b = 2;\n```\n\nAfter.';
    const { lives, html } = stream(text, [3]);
    for (const live of lives.filter((entry) => entry.includes('<pre>'))) {
      expect(live).toMatch(
        /^<div class="markdown-code">.*<pre><code class="hljs language-typescript">[^<]*<\/code><\/pre><\/div>\n$/s,
      );
    }
    expect(lives.some((live) => live.includes('const a = &quot;&lt;b&gt;&quot;;'))).toBe(true);
    expect(html).toContain(
      '<span class="hljs-keyword">const</span> a = <span class="hljs-string">&quot;&lt;b&gt;&quot;</span>;',
    );
  });

  test('a reference definition still streaming is not fixed in its partial form', () => {
    const renderer = new IncrementalMarkdown();
    renderer.update('[x]\n\n[x]: https://exa');
    renderer.update('[x]\n\n[x]: https://example.com/full');
    const last = renderer.finish('[x]\n\n[x]: https://example.com/full\n\n[x] again');
    expect(last.completed.map((chunk) => chunk.html).join('')).toBe(
      '<p><a href="https://example.com/full" target="_blank" rel="noopener noreferrer">x</a></p>\n' +
        '<p><a href="https://example.com/full" target="_blank" rel="noopener noreferrer">x</a> again</p>\n',
    );
  });

  test('the documented limit: a block completed before a reference is defined keeps the reference as text', () => {
    const text = 'See [x].\n\nMore.\n\n[x]: https://example.com\n';
    const { html } = stream(text, [4]);
    expect(html).toBe('<p>See [x].</p>\n<p>More.</p>\n');
    expect(renderMarkdown(text)).toBe(
      '<p>See <a href="https://example.com" target="_blank" rel="noopener noreferrer">x</a>.</p>\n<p>More.</p>\n',
    );
  });

  test('text that is not an extension of the last starts over', () => {
    const renderer = new IncrementalMarkdown();
    renderer.update('# One\n\nTwo');
    const step = renderer.update('Other');
    expect(step).toEqual({ reset: true, completed: [], live: '<p>Other</p>\n', pending: false });
  });

  test('CRLF and lone CR are read as newlines', () => {
    expect(normalizeNewlines('a\r\nb\rc\n')).toBe('a\nb\nc\n');
    const { html } = stream('# T\r\n\r\n- a\r\n- b\r\n', [2]);
    expect(html).toBe(renderMarkdown('# T\n\n- a\n- b\n'));
  });

  test('a chunk reports a language it could highlight once loaded', () => {
    const renderer = new IncrementalMarkdown();
    const done = renderer.finish('```go\nfunc main() {}\n```');
    expect([...done.completed[0]!.missingLanguages]).toEqual(['go']);
  });
});
