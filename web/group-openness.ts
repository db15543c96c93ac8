/**
 * Whether a group of the Tools page is open: the user's stored choice (fold-state.ts), unless a search
 * or filter found something inside it, which opens it. A group the user folds while a search holds it
 * open stays folded for that search only; the stored choice is left as it was, and a new search starts
 * afresh.
 */
import type { FoldStore } from './fold-state.ts';

export interface Foldable {
  id: string;
  /** Open unless the user folded it (categories), or folded unless they opened it (servers). */
  openByDefault: boolean;
}

export class GroupOpenness {
  readonly #folds: FoldStore;
  #filtering = false;
  /** Groups the user folded while the current search had opened them. */
  readonly #dismissed = new Set<string>();
  /** How many matches each group holds under the current search. */
  readonly #matches = new Map<string, number>();

  constructor(folds: FoldStore) {
    this.#folds = folds;
  }

  /** A new search or set of filters: groups the user folded during the last one may open again. */
  searchChanged(filtering: boolean): void {
    this.#filtering = filtering;
    this.#dismissed.clear();
  }

  /** Records what the current search found in `group` and says whether it is open. */
  isOpen(group: Foldable, matches: number): boolean {
    this.#matches.set(group.id, matches);
    return this.#heldOpen(group)
      ? !this.#dismissed.has(group.id)
      : this.#folds.isOpen(group.id, group.openByDefault);
  }

  /** The user's click: folds an open group, unfolds a folded one; returns the new state. */
  toggle(group: Foldable): boolean {
    if (this.#heldOpen(group)) {
      if (this.#dismissed.has(group.id)) this.#dismissed.delete(group.id);
      else this.#dismissed.add(group.id);
    } else this.#folds.setOpen(group.id, !this.#folds.isOpen(group.id, group.openByDefault));
    return this.isOpen(group, this.#matches.get(group.id) ?? 0);
  }

  #heldOpen(group: Foldable): boolean {
    return this.#filtering && (this.#matches.get(group.id) ?? 0) > 0;
  }
}
