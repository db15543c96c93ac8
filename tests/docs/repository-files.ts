/**
 * The files under some directories of a checkout, relative to its root with `/` separators and sorted,
 * so a check reports the same paths on every machine. Dependencies and build output are never listed,
 * nor `__fixtures__` (planted inputs of other tests, some bad on purpose) unless asked for: a check of
 * test code reads the fixture programs too.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SKIPPED_DIRECTORIES = new Set(['node_modules', '__fixtures__', 'dist', 'data', 'test-results']);

/** Every file under each of `directories` (relative to `root`; a missing one lists nothing). */
export function listRepositoryFiles(
  root: string,
  directories: readonly string[],
  options: { withFixtures?: boolean } = {},
): string[] {
  const skipped = new Set(SKIPPED_DIRECTORIES);
  if (options.withFixtures) skipped.delete('__fixtures__');
  const files: string[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(join(root, directory)).sort()) {
      const path = `${directory}/${name}`;
      if (statSync(join(root, path)).isDirectory()) {
        if (!skipped.has(name)) walk(path);
      } else files.push(path);
    }
  };
  for (const directory of directories) if (existsSync(join(root, directory))) walk(directory);
  return files.sort();
}
