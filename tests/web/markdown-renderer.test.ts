/**
 * The markdown renderer's guarantees on its HTML output: model text never becomes markup, links and
 * images are only what is allowed, code is escaped and highlighted once its language is loaded.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { languageDisplayName, languageFor, loadLanguage } from '../../web/highlight-languages.ts';
import { isSafeLink, isServerImage, renderMarkdown } from '../../web/markdown-renderer.ts';

/** Every tag name the output contains. */
function tagsOf(html: string): string[] {
  return [
    ...new Set([...html.matchAll(/<([a-z][a-z0-9]*)\b/gi)].map((match) => match[1]!.toLowerCase())),
  ].sort();
}
/** Every attribute name the output contains. */
function attributesOf(html: string): string[] {
  const names = new Set<string>();
  for (const tag of html.matchAll(/<[a-z][^>]*>/gi))
    for (const attribute of tag[0].matchAll(/\s([a-z-]+)=/gi)) names.add(attribute[1]!.toLowerCase());
  return [...names].sort();
}

/** A Copy button as the renderer writes it: "Copy" shown, the block's kind for screen readers. */
const COPY_CODE_BUTTON =
  '<button type="button" class="copy-code"><span class="copy-code-action">Copy</span>' +
  '<span class="visually-hidden"> code</span></button>';
const TYPESCRIPT_COPY_BUTTON =
  '<button type="button" class="copy-code"><span class="copy-code-action">Copy</span>' +
  '<span class="visually-hidden"> TypeScript code</span></button>';

const ALLOWED_TAGS = [
  'a',
  'blockquote',
  'br',
  'button',
  'code',
  'del',
  'div',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
  'input',
  'label',
  'li',
  'ol',
  'p',
  'pre',
  'span',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];

describe('XSS: what the model writes never becomes markup', () => {
  test.each([
    ['a script tag', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n'],
    ['an img with onerror', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>\n'],
    [
      'inline SVG',
      '<svg onload=alert(1)><circle/></svg>',
      '<p>&lt;svg onload=alert(1)&gt;&lt;circle/&gt;&lt;/svg&gt;</p>\n',
    ],
    [
      'an iframe block',
      '<iframe src="https://evil.example"></iframe>',
      '<p>&lt;iframe src=&quot;<a href="https://evil.example" target="_blank" rel="noopener noreferrer">https://evil.example</a>&quot;&gt;&lt;/iframe&gt;</p>\n',
    ],
    ['a javascript: link', '[click](javascript:alert(1))', '<p>[click](javascript:alert(1))</p>\n'],
    [
      'an upper-case JAVASCRIPT: link',
      '[click](JAVASCRIPT:alert(1))',
      '<p>[click](JAVASCRIPT:alert(1))</p>\n',
    ],
    [
      'a javascript: link split by a tab',
      '<java\tscript:alert(1)>',
      '<p>&lt;java\tscript:alert(1)&gt;</p>\n',
    ],
    [
      'an entity-encoded javascript: link',
      '[x](&#106;avascript:alert(1))',
      '<p>[x](javascript:alert(1))</p>\n',
    ],
    [
      'a data: link',
      '[x](data:text/html,<script>alert(1)</script>)',
      '<p>[x](data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;)</p>\n',
    ],
    ['a vbscript: link', '[x](vbscript:msgbox(1))', '<p>[x](vbscript:msgbox(1))</p>\n'],
    ['a protocol-relative link', '[x](//evil.example/a)', '<p>[x](//evil.example/a)</p>\n'],
    [
      'a data: image',
      '![pixel](data:image/png;base64,AAAA)',
      '<p>![pixel](data:image/png;base64,AAAA)</p>\n',
    ],
    ['a javascript: image', '![x](javascript:alert(1))', '<p>![x](javascript:alert(1))</p>\n'],
    [
      'an attribute breaking out of a link title',
      '[x](https://a.example "t\\" onmouseover=\\"alert(1)")',
      '<p><a href="https://a.example" title="t&quot; onmouseover=&quot;alert(1)" target="_blank" rel="noopener noreferrer">x</a></p>\n',
    ],
    ['HTML inside inline code', '`<b onclick=x>`', '<p><code>&lt;b onclick=x&gt;</code></p>\n'],
    [
      'HTML inside inline math',
      '$<img src=x onerror=alert(1)>$',
      '<p><span class="math math-inline">&lt;img src=x onerror=alert(1)&gt;</span></p>\n',
    ],
    [
      'a script inside \\( \\)',
      '\\(</span><script>alert(1)</script>\\)',
      '<p><span class="math math-inline">&lt;/span&gt;&lt;script&gt;alert(1)&lt;/script&gt;</span></p>\n',
    ],
    [
      'a math block closing the placeholder early',
      '$$\n</div><script>alert(1)</script>\n$$',
      '<div class="math math-display">&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;</div>\n',
    ],
    [
      '\\href with a javascript: URL (stays TeX source; the typesetter refuses it)',
      '$\\href{javascript:alert(1)}{x}$',
      '<p><span class="math math-inline">\\href{javascript:alert(1)}{x}</span></p>\n',
    ],
    [
      'HTML as a task item',
      '- [x] <img src=x onerror=alert(1)>',
      '<ul class="task-list">\n<li class="task-list-item"><label class="task-list-label">' +
        '<input type="checkbox" class="task-list-checkbox" disabled checked> ' +
        '&lt;img src=x onerror=alert(1)&gt;</label></li>\n</ul>\n',
    ],
    [
      'a javascript: link as a task item',
      '- [ ] [x](javascript:alert(1))',
      '<ul class="task-list">\n<li class="task-list-item"><label class="task-list-label">' +
        '<input type="checkbox" class="task-list-checkbox" disabled> [x](javascript:alert(1))</label></li>\n</ul>\n',
    ],
  ])('%s', (_name, input, expected) => {
    expect(renderMarkdown(input)).toBe(expected);
  });

  test('HTML in a code block and in its language name is text', () => {
    const html = renderMarkdown('```<img src=x onerror=alert(1)> "q\n<script>alert(1)</script>\n```');
    expect(html).toBe(
      '<div class="markdown-code"><div class="markdown-code-bar"><span class="code-language">&lt;img</span>' +
        COPY_CODE_BUTTON +
        '</div><pre><code class="hljs">&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre></div>\n',
    );
  });

  test('a table of payloads yields only the allowed tags and attributes', () => {
    const payloads = [
      '| payload | note |',
      '|---|---|',
      '| <script>alert(1)</script> | raw |',
      '| <img src=x onerror=alert(1)> | img |',
      '| [a](javascript:alert(1)) | js link |',
      '| ![b](data:image/svg+xml;base64,PHN2Zz4=) | data image |',
      '| ![c](https://evil.example/track.png) | external image |',
      '| <svg><script>alert(1)</script></svg> | svg |',
      '| `<style>*{}</style>` | code |',
      '| $\\href{javascript:alert(1)}{x}$ | math href |',
      '| $\\htmlClass{copy-code}{x}\\htmlStyle{color:red}{y}$ | math html |',
      '| $\\url{javascript:alert(1)}$ \\(\\includegraphics{/api/x}\\) | math url, image |',
      '| $<script>alert(1)</script>$ | html in math |',
      '',
      '$$',
      '</div><iframe src="javascript:alert(1)"></iframe>',
      '$$',
      '',
      '- [x] <svg onload=alert(1)>',
      '- [ ] "><input type=text autofocus onfocus=alert(1)>',
      '- [x]<script>alert(1)</script>',
      '',
      '```"><script>alert(1)</script>',
      '</code></pre><script>alert(2)</script>',
      '```',
    ].join('\n');
    const html = renderMarkdown(payloads);
    expect(tagsOf(html).filter((tag) => !ALLOWED_TAGS.includes(tag))).toEqual([]);
    expect(attributesOf(html)).toEqual(['class', 'href', 'rel', 'target', 'type']);
    expect(html).not.toMatch(/<(?:script|svg|style|iframe)/i);
    // Math is a placeholder holding the TeX as text; task items are disabled checkboxes, nothing else.
    expect(html.match(/<span class="math math-inline">/g)?.length).toBe(5);
    expect(html).toContain(
      '<div class="math math-display">&lt;/div&gt;&lt;iframe src=&quot;javascript:alert(1)&quot;&gt;&lt;/iframe&gt;</div>',
    );
    expect(html.match(/<input /g)).toEqual(['<input ', '<input ']);
    expect(html.match(/<input [^>]*>/g)).toEqual([
      '<input type="checkbox" class="task-list-checkbox" disabled checked>',
      '<input type="checkbox" class="task-list-checkbox" disabled>',
    ]);
    expect(html).toContain('<li>[x]&lt;script&gt;alert(1)&lt;/script&gt;</li>');
    expect(html).toContain(
      '<td><a href="https://evil.example/track.png" target="_blank" rel="noopener noreferrer">c</a></td>',
    );
  });
});

describe('links and images', () => {
  test('links open in a new tab without opener or referrer; fragments stay in the page', () => {
    expect(
      renderMarkdown('[docs](https://example.com/a?b=1) [top](#top) [chat](/chats/1) <mailto:a@b.example>'),
    ).toBe(
      '<p><a href="https://example.com/a?b=1" target="_blank" rel="noopener noreferrer">docs</a> ' +
        '<a href="#top">top</a> <a href="/chats/1" target="_blank" rel="noopener noreferrer">chat</a> ' +
        '<a href="mailto:a@b.example" target="_blank" rel="noopener noreferrer">mailto:a@b.example</a></p>\n',
    );
  });

  test('a bare URL becomes a link', () => {
    expect(renderMarkdown('see https://example.com/x.')).toBe(
      '<p>see <a href="https://example.com/x" target="_blank" rel="noopener noreferrer">https://example.com/x</a>.</p>\n',
    );
  });

  test("only the server's own images render inline, marked for loading with the token", () => {
    expect(renderMarkdown('![a mango](/api/images/img_01-x)')).toBe(
      '<p><img class="markdown-image" alt="a mango" data-server-image="/api/images/img_01-x"></p>\n',
    );
    expect(renderMarkdown('![remote](https://cdn.example/m.png)')).toBe(
      '<p><a href="https://cdn.example/m.png" target="_blank" rel="noopener noreferrer">remote</a></p>\n',
    );
    expect(renderMarkdown('![](https://cdn.example/m.png)')).toBe(
      '<p><a href="https://cdn.example/m.png" target="_blank" rel="noopener noreferrer">https://cdn.example/m.png</a></p>\n',
    );
  });

  test.each([
    ['https://example.com', true],
    ['http://example.com', true],
    ['mailto:a@b.example', true],
    ['#section', true],
    ['/api/images/x', true],
    ['//evil.example', false],
    ['/\\evil.example', false],
    ['javascript:alert(1)', false],
    [' javascript:alert(1)', false],
    ['java\nscript:alert(1)', false],
    ['data:text/html,x', false],
    ['file:///etc/passwd', false],
    ['blob:https://x/1', false],
    ['relative/path', false],
  ])('isSafeLink(%j) = %p', (url, expected) => {
    expect(isSafeLink(url)).toBe(expected);
  });

  test.each([
    ['/api/images/abc_1-2', true],
    ['/api/images/abc/../../x', false],
    ['/api/images/abc?x=1', false],
    ['https://host/api/images/abc', false],
    ['/api/imagesx/abc', false],
  ])('isServerImage(%j) = %p', (url, expected) => {
    expect(isServerImage(url)).toBe(expected);
  });
});

describe('structure and code', () => {
  beforeAll(async () => {
    await loadLanguage('typescript');
  });

  test('GFM tables (alignment as a class, never a style attribute), lists, headings, emphasis and strikethrough', () => {
    expect(renderMarkdown('## Plan\n\n| a | b |\n|:-|-:|\n| 1 | **2** |\n\n1. one\n2. ~~two~~\n')).toBe(
      '<h2>Plan</h2>\n<div class="markdown-table"><table>\n<thead>\n<tr>\n<th class="align-left">a</th>\n' +
        '<th class="align-right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td class="align-left">1</td>\n' +
        '<td class="align-right"><strong>2</strong></td>\n</tr>\n</tbody>\n</table></div>\n' +
        '<ol>\n<li>one</li>\n<li><s>two</s></li>\n</ol>\n',
    );
  });

  test('a loaded language is highlighted; the alias names the same language', () => {
    expect(languageFor('ts')).toBe('typescript');
    expect(renderMarkdown('```ts\nconst a: number = 1;\n```')).toBe(
      '<div class="markdown-code"><div class="markdown-code-bar"><span class="code-language">ts</span>' +
        TYPESCRIPT_COPY_BUTTON +
        '</div><pre><code class="hljs language-typescript">' +
        '<span class="hljs-keyword">const</span> <span class="hljs-attr">a</span>: <span class="hljs-built_in">number</span> = ' +
        '<span class="hljs-number">1</span>;\n</code></pre></div>\n',
    );
  });

  test('a language not loaded yet is plain and reported; an unknown one is plain and not', () => {
    const env = { missingLanguages: new Set<string>() };
    const html = renderMarkdown('```rust\nfn main() {}\n```\n\n```klingon\nQapla\n```', env);
    expect([...env.missingLanguages]).toEqual(['rust']);
    expect(html).toContain('<code class="hljs language-rust">fn main() {}\n</code>');
    expect(html).toContain('<code class="hljs">Qapla\n</code>');
  });

  test('an unclosed fence runs to the end and is still a code block', () => {
    expect(renderMarkdown('Here:\n\n```ts\nlet x = "<b>')).toBe(
      '<p>Here:</p>\n<div class="markdown-code"><div class="markdown-code-bar"><span class="code-language">ts</span>' +
        TYPESCRIPT_COPY_BUTTON +
        '</div><pre><code class="hljs language-typescript">' +
        '<span class="hljs-keyword">let</span> x = <span class="hljs-string">&quot;&lt;b&gt;</span></code></pre></div>\n',
    );
  });

  test('plain code mode (a block still streaming) skips highlighting', () => {
    expect(renderMarkdown('```ts\nlet x = 1;\n```', { plainCode: true })).toContain(
      '<code class="hljs language-typescript">let x = 1;\n</code>',
    );
  });

  test('a Copy button is named after its block: the language as people write it, or just "code"', () => {
    const copyNames = (text: string) =>
      [...renderMarkdown(text).matchAll(/<span class="visually-hidden">([^<]*)<\/span><\/button>/g)].map(
        (match) => `Copy${match[1]}`,
      );
    expect(copyNames('```ts\na\n```\n\n```toml\nb = 1\n```\n\n```klingon\nc\n```\n\n```\nd\n```')).toEqual([
      'Copy TypeScript code',
      'Copy TOML code',
      'Copy code',
      'Copy code',
    ]);
    expect(['py', 'C++', 'sh', 'cs', 'yml', 'html', 'nope'].map(languageDisplayName)).toEqual([
      'Python',
      'C++',
      'Bash',
      'C#',
      'YAML',
      'HTML',
      undefined,
    ]);
  });
});
