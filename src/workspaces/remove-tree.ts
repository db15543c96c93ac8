/**
 * Removes a directory tree by descriptor: each directory entered by its one name with links refused,
 * each entry removed by `unlinkat` in its held parent, so a link in the tree is removed itself and
 * nothing it points at is touched. The walk stays on the tree's filesystem: a mount found inside is
 * left in place (with the directories above it) and named, never emptied.
 */
import type { HeldDirectory } from '../descriptors/held-directory.ts';

/** Removes `name` in `parent` and everything below it; returns what was left (mounts inside), if any. */
export function removeTree(parent: HeldDirectory, name: string): string[] {
  const left: string[] = [];
  const device = parent.statEntry(name).dev;
  const walk = (directory: HeldDirectory, shown: string): boolean => {
    let emptied = true;
    for (const entry of directory.entriesSync()) {
      const stats = directory.statEntry(entry.name);
      const path = `${shown}/${entry.name}`;
      if (stats.dev !== device) {
        left.push(path);
        emptied = false;
      } else if (stats.isDirectory()) {
        const child = directory.openDirectory(entry.name);
        let childEmptied: boolean;
        try {
          childEmptied = walk(child, path);
        } finally {
          child.close();
        }
        if (childEmptied) directory.removeDirectory(entry.name);
        else emptied = false;
      } else {
        directory.removeFile(entry.name);
      }
    }
    return emptied;
  };
  const top = parent.openDirectory(name);
  let emptied: boolean;
  try {
    emptied = walk(top, `${parent.path}/${name}`);
  } finally {
    top.close();
  }
  if (emptied) parent.removeDirectory(name);
  return left;
}
