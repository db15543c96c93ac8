/**
 * GFM task lists: `[ ]`, `[x]`, `[X]` items become disabled checkboxes labelled by their text; anything
 * else stays a plain item.
 */
import { expect, test } from 'bun:test';
import { renderMarkdown } from '../../web/markdown-renderer.ts';

const box = (checked: boolean) =>
  `<input type="checkbox" class="task-list-checkbox" disabled${checked ? ' checked' : ''}>`;
const item = (checked: boolean, text: string) =>
  `<li class="task-list-item"><label class="task-list-label">${box(checked)} ${text}</label></li>\n`;

test('open, done (x or X) and plain items in one list', () => {
  expect(renderMarkdown('- [ ] write tests\n- [x] ship **it**\n- [X] celebrate\n- plain')).toBe(
    `<ul class="task-list">\n${item(false, 'write tests')}${item(true, 'ship <strong>it</strong>')}` +
      `${item(true, 'celebrate')}<li>plain</li>\n</ul>\n`,
  );
});

test('ordered, loose and nested lists', () => {
  expect(renderMarkdown('1. [x] first\n\n   more text')).toBe(
    '<ol class="task-list">\n<li class="task-list-item">\n' +
      `<p><label class="task-list-label">${box(true)} first</label></p>\n<p>more text</p>\n</li>\n</ol>\n`,
  );
  expect(renderMarkdown('- [ ] parent\n  - [x] child')).toBe(
    `<ul class="task-list">\n<li class="task-list-item"><label class="task-list-label">${box(false)} parent</label>\n` +
      `<ul class="task-list">\n${item(true, 'child')}</ul>\n</li>\n</ul>\n`,
  );
});

test.each([
  ['no space after the box', '- [x]done', '<ul>\n<li>[x]done</li>\n</ul>\n'],
  ['a box alone', '- [ ]', '<ul>\n<li>[ ]</li>\n</ul>\n'],
  ['another letter', '- [y] maybe', '<ul>\n<li>[y] maybe</li>\n</ul>\n'],
  ['a box later in the text', '- do [x] later', '<ul>\n<li>do [x] later</li>\n</ul>\n'],
  ['a box outside a list', '[x] not a task', '<p>[x] not a task</p>\n'],
])('%s stays text', (_name, input, expected) => {
  expect(renderMarkdown(input)).toBe(expected);
});
