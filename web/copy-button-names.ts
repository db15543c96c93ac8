/**
 * Gives every Copy button of an answer a name of its own. The renderer names a button after its block
 * ("Copy TypeScript code"); when an answer holds several blocks of one language, the second and later
 * are numbered ("Copy TypeScript code 2"), so a screen reader's list of buttons tells them apart. The
 * first keeps its name, and a later block never renames an earlier one, so names stay put while an
 * answer streams.
 */

/** The name each button had from the renderer, kept so the numbering can run again after every step. */
const rendererNames = new WeakMap<Element, string>();

function hiddenNamePart(button: Element): Element | null {
  return button.querySelector('.visually-hidden');
}

export function nameCopyButtons(root: ParentNode): void {
  const seen = new Map<string, number>();
  for (const button of root.querySelectorAll('button.copy-code')) {
    const name = hiddenNamePart(button);
    if (!name) continue;
    let base = rendererNames.get(button);
    if (base === undefined) {
      base = name.textContent ?? '';
      rendererNames.set(button, base);
    }
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    const wanted = count === 1 ? base : `${base} ${count}`;
    if (name.textContent !== wanted) name.textContent = wanted;
  }
}
