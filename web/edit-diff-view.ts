/**
 * An edit as its line diff (`line-diff.ts`): the same view in the approval card, before the edit runs,
 * and in the finished card, so what the user approved is what stays on screen. Every line is inserted
 * as text; removed lines are `<del>`, added ones `<ins>`, so the kind is also in the markup and not
 * only in the colour.
 */
import type { FileEditArguments } from '../src/contracts/tool-result-view.ts';
import { type Child, h } from './dom.ts';
import { diffCounts, lineDiff } from './line-diff.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** The edit a call's arguments describe, when they have the `file_edit` view's shape. */
export function readFileEditArguments(
  args: Record<string, unknown> | undefined,
): FileEditArguments | undefined {
  if (
    !args ||
    typeof args.path !== 'string' ||
    typeof args.oldString !== 'string' ||
    typeof args.newString !== 'string'
  )
    return undefined;
  return {
    path: args.path,
    oldString: args.oldString,
    newString: args.newString,
    ...(args.replaceAll === true ? { replaceAll: true } : {}),
  };
}

/** "2 lines removed, 3 added": what the diff's caption says of its size. */
export function diffSizeText(edit: FileEditArguments): string {
  const counts = diffCounts(lineDiff(edit.oldString, edit.newString));
  return `${plural(counts.removed, 'line')} removed, ${counts.added} added`;
}

/** The diff block itself; `className` adds the place's own class (the approval card's `approval-diff`). */
export function renderLineDiff(edit: FileEditArguments, className = ''): HTMLElement {
  return h(
    'pre',
    { class: `code-block line-diff ${className}`.trim(), 'aria-label': `Changes to ${edit.path}` },
    lineDiff(edit.oldString, edit.newString).map((line) =>
      line.kind === 'removed'
        ? h('del', {}, `- ${line.text}\n`)
        : line.kind === 'added'
          ? h('ins', {}, `+ ${line.text}\n`)
          : h('span', {}, `  ${line.text}\n`),
    ),
  );
}

/** A caption (`verb path — size, facts`) over the diff. */
export function renderEditDiff(
  edit: FileEditArguments,
  verb: string,
  facts: readonly string[],
  className: string,
  diffClass = '',
): HTMLElement {
  const caption: Child[] = [
    `${verb} `,
    h('code', {}, edit.path),
    ` — ${[diffSizeText(edit), ...(edit.replaceAll === true ? ['every occurrence'] : []), ...facts].join(', ')}`,
  ];
  return h(
    'div',
    { class: className },
    h('p', { class: 'result-caption' }, caption),
    renderLineDiff(edit, diffClass),
  );
}
