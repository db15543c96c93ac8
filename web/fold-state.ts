/**
 * Which groups of the Tools page the user folded or unfolded, kept in this browser's `localStorage`
 * so a reload shows the page as they left it. Only the user's own choices are stored; a group they never
 * touched follows its default (categories open, MCP servers folded). A stored value that is not ours (an
 * older format, a hand edit) is set aside rather than trusted: the page then starts from the defaults,
 * and the next choice writes a fresh value.
 */

export const FOLD_STATE_KEY = 'mango.toolsPage.folds';

export interface FoldStore {
  isOpen(id: string, byDefault: boolean): boolean;
  setOpen(id: string, open: boolean): void;
}

type Storage = Pick<globalThis.Storage, 'getItem' | 'setItem'>;

function readChoices(storage: Storage, key: string): Map<string, boolean> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(storage.getItem(key) ?? '{}');
  } catch {
    return new Map();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return new Map();
  return new Map(
    Object.entries(parsed).filter((pair): pair is [string, boolean] => typeof pair[1] === 'boolean'),
  );
}

export function createFoldStore(storage: Storage, key = FOLD_STATE_KEY): FoldStore {
  const choices = readChoices(storage, key);
  return {
    isOpen: (id, byDefault) => choices.get(id) ?? byDefault,
    setOpen: (id, open) => {
      choices.set(id, open);
      try {
        storage.setItem(key, JSON.stringify(Object.fromEntries(choices)));
      } catch {
        // Storage full or refused (a private window): the choice holds until the page is left.
      }
    },
  };
}
