/**
 * GFM task lists: a list item whose text starts with `[ ]`, `[x]` or `[X]` and a space becomes a
 * disabled checkbox (an answer is not a form), labelled by the item's text: the item's first line is
 * wrapped in a `<label>` with the checkbox, so a screen reader reads "checkbox, checked, <text>". The list
 * gets the class `task-list` and the item `task-list-item`, so the bullets can go.
 */
import type { MarkdownIt, StateCore, Token } from 'markdown-it';

const TASK_PATTERN = /^\[([ xX])\][ \t]/;

function markTaskItem(state: StateCore, tokens: Token[], inlineIndex: number): void {
  const inline = tokens[inlineIndex]!;
  const first = inline.children?.[0];
  const match = TASK_PATTERN.exec(inline.content);
  if (!match || first?.type !== 'text' || !TASK_PATTERN.test(first.content)) return;
  first.content = first.content.slice(match[0].length);
  const open = new state.Token('task_label_open', 'label', 1);
  open.meta = { checked: match[1] !== ' ' };
  const close = new state.Token('task_label_close', 'label', -1);
  inline.children = [open, ...inline.children!, close];
  const item = tokens[inlineIndex - 2]!;
  item.attrJoin('class', 'task-list-item');
  // The list is the nearest opening list token before the item at one level up.
  for (let index = inlineIndex - 3; index >= 0; index -= 1) {
    const token = tokens[index]!;
    if (token.level === item.level - 1 && token.nesting === 1) {
      if (token.attrGet('class') !== 'task-list') token.attrJoin('class', 'task-list');
      break;
    }
  }
}

function taskLists(state: StateCore): void {
  const tokens = state.tokens;
  for (let index = 2; index < tokens.length; index += 1) {
    if (
      tokens[index]!.type === 'inline' &&
      tokens[index - 1]!.type === 'paragraph_open' &&
      tokens[index - 2]!.type === 'list_item_open'
    )
      markTaskItem(state, tokens, index);
  }
}

export function markdownTaskLists(md: MarkdownIt): void {
  md.core.ruler.after('inline', 'task_lists', taskLists);
  const rules = md.renderer.rules;
  rules.task_label_open = (tokens, index) => {
    const checked = (tokens[index]!.meta as { checked: boolean }).checked ? ' checked' : '';
    return `<label class="task-list-label"><input type="checkbox" class="task-list-checkbox" disabled${checked}> `;
  };
  rules.task_label_close = () => '</label>';
}
