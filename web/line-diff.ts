/**
 * A line diff of two texts for the approval card of an edit: every line of `before` and `after` appears
 * exactly once, in order, as kept, removed or added, and the kept lines are a longest common
 * subsequence (so an edit shows as small as it is). Lines shared at both ends are matched first; the
 * middle is diffed by dynamic programming up to `MAX_DIFF_CELLS` cells, beyond which the middle is shown
 * as all removed then all added (still exact, only less compact) so a huge edit never stalls the page.
 * Pure: no DOM, unit-tested.
 */

export type DiffLineKind = 'kept' | 'removed' | 'added';

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** Above this many cells (middle lines of before × after) the middle is not diffed line by line. */
export const MAX_DIFF_CELLS = 250_000;

/** Splits on `\n` (a `\r` before it stays with its line); a final newline does not add an empty line. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

export function lineDiff(before: string, after: string, maxCells = MAX_DIFF_CELLS): DiffLine[] {
  const left = splitLines(before);
  const right = splitLines(after);
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start += 1;
  let endLeft = left.length;
  let endRight = right.length;
  while (endLeft > start && endRight > start && left[endLeft - 1] === right[endRight - 1]) {
    endLeft -= 1;
    endRight -= 1;
  }
  const kept = (text: string): DiffLine => ({ kind: 'kept', text });
  const middle = diffMiddle(left.slice(start, endLeft), right.slice(start, endRight), maxCells);
  return [...left.slice(0, start).map(kept), ...middle, ...left.slice(endLeft).map(kept)];
}

function diffMiddle(left: string[], right: string[], maxCells: number): DiffLine[] {
  const removed = (text: string): DiffLine => ({ kind: 'removed', text });
  const added = (text: string): DiffLine => ({ kind: 'added', text });
  if (left.length === 0 || right.length === 0 || left.length * right.length > maxCells) {
    return [...left.map(removed), ...right.map(added)];
  }
  // lengths[i][j]: the longest common subsequence of left[i..] and right[j..].
  const width = right.length + 1;
  const lengths = new Uint32Array((left.length + 1) * width);
  for (let i = left.length - 1; i >= 0; i -= 1) {
    for (let j = right.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        left[i] === right[j]
          ? lengths[(i + 1) * width + j + 1]! + 1
          : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length && j < right.length) {
    if (left[i] === right[j]) {
      lines.push({ kind: 'kept', text: left[i]! });
      i += 1;
      j += 1;
    } else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) {
      // Removals before additions where both are equally long: the old line, then its replacement.
      lines.push(removed(left[i]!));
      i += 1;
    } else {
      lines.push(added(right[j]!));
      j += 1;
    }
  }
  for (; i < left.length; i += 1) lines.push(removed(left[i]!));
  for (; j < right.length; j += 1) lines.push(added(right[j]!));
  return lines;
}

/** How many lines a diff removes and adds, for its caption ("2 lines removed, 3 added"). */
export function diffCounts(lines: readonly DiffLine[]): { removed: number; added: number } {
  let removed = 0;
  let added = 0;
  for (const line of lines) {
    if (line.kind === 'removed') removed += 1;
    else if (line.kind === 'added') added += 1;
  }
  return { removed, added };
}
